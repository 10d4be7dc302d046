"""Remembers the last section a person opened, so "/" brings them back to it, and sends an htmx
request whose session has ended to the login page as a whole page."""

from collections.abc import Callable
from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import resolve_url
from django_htmx.http import HttpResponseClientRedirect

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


class HtmxLoginRedirectMiddleware:
    """htmx follows a redirect by itself and would swap the login page into a fragment's place
    (the vault inside the vault); a whole-page redirect instead, back to the page after login."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not request.htmx or response.status_code != 302:  # most requests: nothing to resolve
            return response
        login = resolve_url(settings.LOGIN_URL)
        if not response["Location"].startswith(login + "?"):
            return response
        page = request.htmx.current_url_abs_path or "/"
        return HttpResponseClientRedirect(f"{login}?{urlencode({'next': page}, safe='/')}")
