"""Home redirect, the teacher's Classroom page, and each person's settings (API tokens)."""

from collections.abc import Callable
from functools import wraps

import segno
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_POST

from apps.accounts.forms import StudentListForm, TokenForm
from apps.accounts.middleware import SECTIONS
from apps.accounts.models import ApiToken, User
from cognivault_site.network import lan_addresses


def teacher_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Logged in and a teacher; a student gets 403 rather than a login loop."""

    @wraps(view)
    @login_required
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not request.user.is_teacher:
            raise PermissionDenied("Only teachers manage the classroom.")
        return view(request, *args, **kwargs)

    return wrapper


@require_GET
@login_required
def home(request: HttpRequest) -> HttpResponse:
    section = request.session.get("last_section")
    return redirect(f"{section}:index" if section in SECTIONS else "vault:index")


def join_urls(request: HttpRequest) -> list[str]:
    login = reverse("accounts:login")
    hosts = lan_addresses() or [request.get_host().split(":")[0]]
    return [f"http://{host}:{settings.PORT}{login}" for host in hosts]


def locked_out(request: HttpRequest, response, credentials) -> HttpResponse:
    """django-axes lockout: JSON for the API, a page for people."""
    message = "Too many failed logins; try again in 15 minutes."
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": message}, status=429)
    return render(request, "accounts/locked_out.html", status=429)


def render_classroom(request: HttpRequest, form: StudentListForm, status: int = 200):
    urls = join_urls(request)
    return render(
        request,
        "accounts/classroom.html",
        {
            "students": User.objects.students(),
            "form": form,
            "join_urls": urls,
            # segno writes the SVG from the URL alone; no user input reaches it.
            "join_qr": mark_safe(segno.make(urls[0]).svg_inline(scale=5)),
        },
        status=status,
    )


@require_GET
@teacher_required
def classroom(request: HttpRequest) -> HttpResponse:
    return render_classroom(request, StudentListForm())


@require_POST
@teacher_required
def create_students(request: HttpRequest) -> HttpResponse:
    form = StudentListForm(request.POST)
    if not form.is_valid():
        return render_classroom(request, form, status=422)
    created = User.objects.create_students(form.cleaned_data["names"])
    return render(request, "accounts/credentials.html", {"credentials": created})


@require_POST
@teacher_required
def reset_student_password(request: HttpRequest, pk: int) -> HttpResponse:
    student = get_object_or_404(User.objects.students(), pk=pk)
    password = student.reset_password()
    return render(request, "accounts/credentials.html", {"credentials": [(student, password)]})


@require_GET
@login_required
def account_settings(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "accounts/settings.html",
        {
            "tokens": ApiToken.objects.visible_to(request.user),
            "form": TokenForm(),
        },
    )


@require_POST
@login_required
def create_token(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST)
    new_token = None
    if form.is_valid():
        _, new_token = ApiToken.objects.issue(request.user, form.cleaned_data["name"])
        form = TokenForm()
    template = "accounts/settings.html#token-list" if request.htmx else "accounts/settings.html"
    return render(
        request,
        template,
        {
            "tokens": ApiToken.objects.visible_to(request.user),
            "form": form,
            "new_token": new_token,
        },
    )


@require_POST
@login_required
def revoke_token(request: HttpRequest, pk: int) -> HttpResponse:
    token = get_object_or_404(ApiToken.objects.visible_to(request.user), pk=pk)
    token.delete()
    if request.htmx:
        return render(
            request,
            "accounts/settings.html#token-list",
            {"tokens": ApiToken.objects.visible_to(request.user), "form": TokenForm()},
        )
    messages.success(request, f"Revoked {token.name}.")
    return redirect("accounts:settings")
