"""Remembers the last section a person opened, so "/" brings them back to it."""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

SECTIONS = ("chat", "vault", "study", "progress")


class RememberSectionMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        match = request.resolver_match
        if (
            match is not None
            and match.app_name in SECTIONS
            and request.method == "GET"
            and response.status_code == 200
            and request.user.is_authenticated
            and request.session.get("last_section") != match.app_name
        ):
            request.session["last_section"] = match.app_name
        return response
