"""Home redirect, the teacher's Classroom page, and each person's settings (API tokens)."""

from collections.abc import Callable
from functools import wraps

import segno
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import authenticate, login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from apps.accounts import badges, lockout, ratelimits, sessions, tasks, tls
from apps.accounts.forms import StudentListForm, TokenForm
from apps.accounts.lan import bases, join_urls
from apps.accounts.middleware import SECTIONS
from apps.accounts.models import ApiToken, StudentBatch, User


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


def locked_out(request: HttpRequest, response, credentials) -> HttpResponse:
    """django-axes lockout: JSON for the API, a page for people."""
    message = "Too many failed logins; try again in 15 minutes."
    if request.path.startswith("/api/"):
        refused = JsonResponse({"detail": message}, status=429)
    else:
        refused = render(request, "accounts/locked_out.html", status=429)
    refused["Retry-After"] = str(round(settings.AXES_COOLOFF_TIME * 3600))
    return refused


def render_classroom(request: HttpRequest, form: StudentListForm, status: int = 200):
    urls = join_urls(request)
    students = list(User.objects.students().prefetch_related("api_tokens"))
    logged_in = sessions.sessions_by_user(student.pk for student in students)
    locked = lockout.locked_usernames(student.username for student in students)
    for student in students:
        student.sessions = logged_in.get(student.pk, [])
        student.locked = student.username in locked
    return render(
        request,
        "accounts/classroom.html",
        {
            "students": students,
            "unfinished_batches": StudentBatch.objects.exclude(status=StudentBatch.Status.READY),
            "form": form,
            "join_urls": urls,
            # segno writes the SVG from the URL alone; no user input reaches it.
            "join_qr": mark_safe(segno.make(urls[0]).svg_inline(scale=5)),
            "fingerprint": tls.fingerprint(),
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
    batch, created = User.objects.create_students(form.cleaned_data["names"], by=request.user)
    tasks.start(batch)
    return render_credentials(request, created, batch)


def render_credentials(
    request: HttpRequest,
    credentials: list[tuple[User, str | None]],
    batch: StudentBatch | None = None,
):
    """The printable login cards; a password of None is unchanged (a new card only)."""
    context = {
        "credentials": credentials,
        "batch": batch,
        # The server's own address, short enough to type: its home page leads to the login.
        "address": bases(request)[0],
        "fingerprint": tls.fingerprint(),
    }
    return render(request, "accounts/credentials.html", context)


@require_GET
@teacher_required
def batch_progress(request: HttpRequest, pk: int) -> HttpResponse:
    batch = get_object_or_404(StudentBatch, pk=pk)
    return render(request, "accounts/credentials.html#batch-progress", {"batch": batch})


@require_POST
@teacher_required
def retry_batch(request: HttpRequest, pk: int) -> HttpResponse:
    """Queue an unfinished batch again (a worker that died, or none running then)."""
    batch = get_object_or_404(StudentBatch.objects.exclude(status=StudentBatch.Status.READY), pk=pk)
    tasks.enqueue(batch.pk)
    messages.success(request, f"The passwords of {batch.total} students are queued again.")
    return redirect("accounts:classroom")


@require_POST
@teacher_required
def reset_student_password(request: HttpRequest, pk: int) -> HttpResponse:
    student = get_object_or_404(User.objects.students(), pk=pk)
    password = student.reset_password()  # also ends the student's tokens and sessions
    return render_credentials(request, [(student, password)])


@require_POST
@teacher_required
def revoke_student_token(request: HttpRequest, pk: int, token_pk: int) -> HttpResponse:
    student = get_object_or_404(User.objects.students(), pk=pk)
    token = get_object_or_404(ApiToken.objects.visible_to(student), pk=token_pk)
    token.delete()
    messages.success(request, f"Revoked {student.username}’s token {token.name}.")
    return redirect("accounts:classroom")


@require_POST
@teacher_required
def end_student_sessions(request: HttpRequest, pk: int) -> HttpResponse:
    """Log a student out: one session (`session`, as listed) or, without it, all of them."""
    student = get_object_or_404(User.objects.students(), pk=pk)
    ref = request.POST.get("session")
    ended = sessions.end_sessions(student, {ref} if ref else None)
    messages.success(request, f"Logged {student.username} out of {ended} session(s).")
    return redirect("accounts:classroom")


@require_POST
@teacher_required
def unlock_student(request: HttpRequest, pk: int) -> HttpResponse:
    """Lift the lockout wrong passwords put on a student's account, from every address."""
    student = get_object_or_404(User.objects.students(), pk=pk)
    lockout.unlock(student)
    messages.success(request, f"{student.username} can log in again.")
    return redirect("accounts:classroom")


@require_http_methods(["GET", "POST"])
def badge_login(request: HttpRequest) -> HttpResponse:
    """A scanned login card: the GET asks "Log in as <name>?", its button POSTs and logs in, so
    a link preview that fetches the address logs no one in (docs/classroom.md#login-cards).
    A card that fails counts as a failed login for the address and the student it names."""
    ratelimits.check(request, "RATE_LIMIT_BADGES", "login card scans")
    token = (request.POST if request.method == "POST" else request.GET).get(badges.FIELD, "")
    named, _ = badges.claimed(token)
    student = authenticate(request, badge=token, username=named.get_username() if named else None)
    if student is None:
        # A lockout is turned into its page by django-axes' middleware.
        return render(request, "accounts/badge_login.html", {"refused": True}, status=403)
    if request.method == "GET":
        return render(request, "accounts/badge_login.html", {"student": student, "token": token})
    login(request, student)
    return redirect("home")


@require_GET
@teacher_required
def badge_qr(request: HttpRequest, pk: int) -> HttpResponse:
    """The QR code of a student's current card, as an image of the printable cards page (one
    request each: a class of 200 codes takes seconds to draw)."""
    student = get_object_or_404(User.objects.students().exclude(badge_key=""), pk=pk)
    response = HttpResponse(content_type="image/svg+xml")
    # A whole SVG document (with its namespace, unlike svg_inline): an <img> shows no less.
    segno.make(badges.badge_url(bases(request)[0], student)).save(response, kind="svg", scale=4)
    response["Cache-Control"] = "no-store"
    return response


@require_POST
@teacher_required
def issue_badge(request: HttpRequest, pk: int) -> HttpResponse:
    """A new login card (the password stays): the old card stops working."""
    student = get_object_or_404(User.objects.students(), pk=pk)
    student.issue_badge()
    return render_credentials(request, [(student, None)])


@require_POST
@teacher_required
def issue_missing_badges(request: HttpRequest) -> HttpResponse:
    students = User.objects.issue_missing_badges()
    if not students:
        messages.info(request, "Every student has a login card already.")
        return redirect("accounts:classroom")
    return render_credentials(request, [(student, None) for student in students])


@require_POST
@teacher_required
def revoke_badge(request: HttpRequest, pk: int) -> HttpResponse:
    student = get_object_or_404(User.objects.students(), pk=pk)
    student.revoke_badge()
    messages.success(request, f"{student.username}’s login card no longer works.")
    return redirect("accounts:classroom")


def settings_context(request: HttpRequest, **extra) -> dict:
    return {
        "tokens": ApiToken.objects.visible_to(request.user),
        "form": TokenForm(),
        "stored_bytes": request.user.stored_bytes(),
        **extra,
    }


@require_GET
@login_required
def account_settings(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/settings.html", settings_context(request))


@require_POST
@login_required
def create_token(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST)
    new_token = None
    status = 422
    if form.is_valid():
        _, new_token = ApiToken.objects.issue(request.user, form.cleaned_data["name"])
        form, status = TokenForm(), 200
    template = "accounts/settings.html#token-list" if request.htmx else "accounts/settings.html"
    context = settings_context(request, form=form, new_token=new_token)
    return render(request, template, context, status=status)


@require_POST
@login_required
def revoke_token(request: HttpRequest, pk: int) -> HttpResponse:
    token = get_object_or_404(ApiToken.objects.visible_to(request.user), pk=pk)
    token.delete()
    if request.htmx:
        return render(request, "accounts/settings.html#token-list", settings_context(request))
    messages.success(request, f"Revoked {token.name}.")
    return redirect("accounts:settings")
