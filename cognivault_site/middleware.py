"""HTTPS for the classroom: plain HTTP from another machine is sent to the HTTPS port, and cookies
set over TLS are marked Secure. This machine's own browser may stay on http://localhost."""

import ipaddress
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.http.request import split_domain_port

CARD_PATH = "/accounts/badge/"  # a login card's address (apps/accounts/urls.py)


class HttpResponseTemporaryRedirect(HttpResponseRedirect):
    status_code = 307  # keeps the method and body of a POST


def is_loopback(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address.strip("[]"))
    except ValueError:
        return address == "localhost"
    # A dual-stack socket reports 127.0.0.1 as ::ffff:127.0.0.1.
    return (getattr(ip, "ipv4_mapped", None) or ip).is_loopback


class LanHttpsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if (
            settings.HTTPS_REDIRECT
            and not request.is_secure()
            and not is_loopback(request.META.get("REMOTE_ADDR", ""))
        ):
            return self.redirect(request)
        response = self.get_response(request)
        if request.is_secure():
            # A cookie set over TLS must never travel back over plain HTTP.
            for name in (settings.SESSION_COOKIE_NAME, settings.CSRF_COOKIE_NAME):
                if name in response.cookies:
                    response.cookies[name]["secure"] = True
        return response

    @staticmethod
    def redirect(request: HttpRequest) -> HttpResponse:
        # get_host() checks ALLOWED_HOSTS, so the redirect never points at a host we do not serve.
        domain, _port = split_domain_port(request.get_host())  # "[fe80::1]" keeps its brackets
        # A login card's key is never repeated in a Location: its page asks to scan again.
        path = request.path if request.path == CARD_PATH else request.get_full_path()
        target = f"https://{domain}:{settings.HTTPS_PORT}{path}"
        if request.method in ("GET", "HEAD"):
            return HttpResponseRedirect(target)
        return HttpResponseTemporaryRedirect(target)
