"""What Django answers by itself, before or around an API operation (a Host it does not serve, a
failed CSRF check, a path or method no route has, a crash), as JSON `{"detail": ...}` under
/api/ and as the pages' own templates elsewhere (docs/api.md: errors)."""

from collections.abc import Callable

from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import csrf, defaults


def under_api(request: HttpRequest) -> bool:
    return request.path_info.startswith("/api/")


def refused(detail: str, status: int) -> JsonResponse:
    return JsonResponse({"detail": detail}, status=status)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler400: a SuspiciousOperation (DisallowedHost among them) or a BadRequest."""
    if not under_api(request):
        return defaults.bad_request(request, exception)
    if isinstance(exception, DisallowedHost):
        return refused(
            "This server does not answer to the host name the request was sent to (its Host "
            "header): use the address the server was started with, or add the name to "
            "ALLOWED_HOSTS.",
            400,
        )
    return refused("The request is malformed or unsafe and was refused; nothing was changed.", 400)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler403."""
    if not under_api(request):
        return defaults.permission_denied(request, exception)
    return refused("You are not allowed to do this.", 403)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler404: a path no route has."""
    if not under_api(request):
        return defaults.page_not_found(request, exception)
    return refused(
        f"The API has no {request.path_info}: its routes are listed at /api/v1/docs.", 404
    )


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: the crash is logged by Django; the client gets a sentence, not a trace."""
    if not under_api(request):
        return defaults.server_error(request)
    return refused("Something went wrong on the server; it is logged. Try again later.", 500)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: a form or request without a valid CSRF token."""
    if not under_api(request):
        return csrf.csrf_failure(request, reason)
    return refused(
        "The CSRF check failed: send the X-CSRFToken header with the csrftoken cookie's value, "
        "or authenticate with `Authorization: Bearer <token>` instead of the session.",
        403,
    )


class JsonErrorsMiddleware:
    """A method a route does not take is ninja's plain-text 405: JSON under /api/ too, naming
    the methods it does take."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            not under_api(request)
            or response.status_code != 405
            or response.get("Content-Type", "").startswith("application/json")
        ):
            return response
        allowed = response["Allow"]
        answer = refused(f"{request.method} is not allowed here, only {allowed}.", 405)
        answer["Allow"] = allowed
        return answer
