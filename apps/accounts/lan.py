"""The addresses students use to reach this server, for the Classroom page and the login cards:
HTTPS, where plain HTTP from another machine is sent anyway."""

from django.conf import settings
from django.http import HttpRequest
from django.urls import reverse

from cognivault_site.network import lan_addresses


def bases(request: HttpRequest) -> list[str]:
    """`https://<lan-ip>:HTTPS_PORT` per LAN address (this request's host without one)."""
    hosts = lan_addresses() or [request.get_host().split(":")[0]]
    if settings.HTTPS_REDIRECT:
        return [f"https://{host}:{settings.HTTPS_PORT}" for host in hosts]
    return [f"http://{host}:{settings.PORT}" for host in hosts]


def join_urls(request: HttpRequest) -> list[str]:
    login = reverse("accounts:login")
    return [base + login for base in bases(request)]
