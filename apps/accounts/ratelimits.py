"""Per-person rate limits for pages and API routes, counted by django-ratelimit in the shared
cache (Redis), so every web process sees the same counts.

Limit a view or a ninja route with `@rate_limited("RATE_LIMIT_UPLOADS", "uploads")`, or call
`check(request, ...)` where only part of a view should count; `check_person(user, ...)` counts
the same way where there is no request (a websocket message). Past the rate the request is
refused with 429 and a message: JSON `{"detail": ...}` from the API (cognivault_site/api.py),
a page or an alert above an htmx form from RateLimitMiddleware.
"""

import logging
from collections.abc import Callable
from functools import wraps
from types import SimpleNamespace

import redis
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django_ratelimit.core import get_usage

log = logging.getLogger(__name__)

PERIODS = {"s": "second", "m": "minute", "h": "hour", "d": "day"}


class RateLimited(Exception):
    """The message says what was refused and when to try again; `wait` is that in seconds, for
    the answer's Retry-After header."""

    status = 429

    def __init__(self, message: str, wait: int):
        super().__init__(message)
        self.wait = wait


def check(request: HttpRequest, setting: str, what: str) -> None:
    """Count this request against the rate in `settings.<setting>`; raise RateLimited past it."""
    rate = getattr(settings, setting)
    if not rate:
        return
    try:
        usage = get_usage(request, group=setting, key="user_or_ip", rate=rate, increment=True)
    except redis.RedisError as error:
        # Redis is down: the app says so on its health check; a limit is not worth a 500.
        log.warning("rate limit %s not checked: %s", setting, error)
        return
    if usage is None or not usage["should_limit"]:
        return
    count, unit = rate.split("/")
    period = PERIODS.get(unit[-1:], unit)
    wait = max(int(usage["time_left"]), 1)
    raise RateLimited(
        f"Too many {what}: at most {count} per {period}. Try again in {wait} seconds.", wait
    )


def check_person(user, setting: str, what: str) -> None:
    """`check` for a signed-in person without a request: the same counter as their pages and
    API calls (django-ratelimit keys a signed-in person by their id)."""
    check(SimpleNamespace(user=user, method="POST"), setting, what)


def rate_limited(setting: str, what: str) -> Callable:
    def decorator(view: Callable) -> Callable:
        @wraps(view)
        def wrapper(request: HttpRequest, *args, **kwargs):
            check(request, setting, what)
            return view(request, *args, **kwargs)

        return wrapper

    return decorator


class RateLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, RateLimited):
            return None
        if request.htmx:
            # Shown above the form (static/js/page.js lets htmx swap this 429 in).
            response = render(
                request, "base.html#page-alert", {"alert": str(exception)}, status=429
            )
            response["HX-Retarget"] = "#page-alerts"
            response["HX-Reswap"] = "innerHTML"
        else:
            response = render(
                request, "accounts/too_many_requests.html", {"alert": str(exception)}, status=429
            )
        response["Retry-After"] = str(exception.wait)
        return response
