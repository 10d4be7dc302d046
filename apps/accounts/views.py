"""Home redirect, logging in by card, and each person's settings (API tokens, their card's
history); the classes and their students are apps/classes."""

import math
from collections.abc import Callable
from functools import wraps

from django.contrib import messages
from django.contrib.auth import BACKEND_SESSION_KEY, authenticate, login
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.defaultfilters import pluralize
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from apps.accounts import lockout, login_cards, ratelimits, sessions
from apps.accounts.forms import TokenForm
from apps.accounts.middleware import SECTIONS
from apps.accounts.models import ApiToken, CardEvent


def role_required(role: str, refusal: str) -> Callable:
    """Logged in and `role` ("is_teacher", "is_admin"); anyone else gets 403 rather than a
    login loop."""

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        @login_required
        def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if not getattr(request.user, role):
                raise PermissionDenied(refusal)
            return view(request, *args, **kwargs)

        return wrapper

    return decorator


teacher_required = role_required("is_teacher", "Only teachers manage classes.")
admin_required = role_required("is_admin", "Only the admin manages teachers.")


@require_GET
@login_required
def home(request: HttpRequest) -> HttpResponse:
    section = request.session.get("last_section")
    return redirect(f"{section}:index" if section in SECTIONS else "vault:index")


def locked_out(request: HttpRequest, response, credentials) -> HttpResponse:
    """django-axes lockout: JSON for the API, a page for people, both saying when it ends."""
    # Read off the request: served over ASGI, django-axes' middleware passes the credentials in
    # the response's place and None as `credentials`, and the lockout would never count down.
    username = (getattr(request, "axes_credentials", None) or {}).get("username")
    seconds = lockout.seconds_locked(request.axes_ip_address, username)
    minutes = math.ceil(seconds / 60)
    wait = f"{minutes} minute{pluralize(minutes)}"
    if request.path.startswith("/api/"):
        message = f"Too many failed logins; try again in {wait}."
        refused = JsonResponse({"detail": message}, status=429)
    else:
        refused = render(request, "accounts/locked_out.html", {"wait": wait}, status=429)
    refused["Retry-After"] = str(seconds)
    return refused


@require_http_methods(["GET", "POST"])
@never_cache
def badge_login(request: HttpRequest) -> HttpResponse:
    """A scanned login card: the GET asks "Log in as <name>?", its button POSTs and logs in, so
    a link preview that fetches the address logs no one in (docs/classroom.md#login-cards).
    A card that fails counts as a failed login for the address and the student it names. The
    page is never cached and its address goes in no Referer; after the login the address holds
    no key."""
    token = (request.POST if request.method == "POST" else request.GET).get(login_cards.FIELD, "")
    if not token:  # a bare address, or one redirected from plain HTTP without its key
        return origin_only_referer(render(request, "accounts/badge_login.html", {"rescan": True}))
    if request.method == "GET":  # a scan; its button's POST is the same scan, counted once
        ratelimits.check(request, "RATE_LIMIT_BADGES", "login card scans")
    named, _ = login_cards.claimed(token)
    student = authenticate(request, badge=token, username=named.get_username() if named else None)
    if student is None:
        # A lockout is turned into its page by django-axes' middleware.
        refused = render(request, "accounts/badge_login.html", {"refused": True}, status=403)
        return origin_only_referer(refused)
    if request.method == "GET":
        context = {"student": student, "token": token}
        return origin_only_referer(render(request, "accounts/badge_login.html", context))
    login(request, student)
    CardEvent.objects.create(
        user=student, kind=CardEvent.Kind.LOGIN, address=request.META.get("REMOTE_ADDR") or None
    )
    return redirect("home")


def origin_only_referer(response: HttpResponse) -> HttpResponse:
    # The page's address holds the card's key: a request from it tells the origin at most.
    # Not "no-referrer": browsers then send the button's POST with `Origin: null`, which
    # Django's CSRF check refuses, and the card would log no one in.
    response["Referrer-Policy"] = "strict-origin"
    return response


def settings_context(request: HttpRequest, **extra) -> dict:
    return {
        "tokens": ApiToken.objects.visible_to(request.user),
        "card_events": request.user.card_events.select_related("by")[:50],
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
        by_card = request.session.get(BACKEND_SESSION_KEY) == sessions.BADGE_BACKEND
        _, new_token = ApiToken.objects.issue(request.user, form.cleaned_data["name"], by_card)
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
