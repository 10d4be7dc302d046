"""Who sends a request, read from its headers with the app's own parsers: the session cookie as
Django reads the Cookie header (the last cookie of a name wins) and the API token as the API's
Bearer auth reads Authorization (the scheme in any case). The door keys its refusals on them
(door.py) and the web server asks whether they name someone signed in before it takes a large
body (bodies.py)."""

import io
from importlib import import_module
from types import SimpleNamespace
from typing import NamedTuple

from django.conf import settings
from django.contrib import auth
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest
from ninja.security import HttpBearer

from apps.accounts.models import ApiToken


class Credentials(NamedTuple):
    session: str  # the session cookie's value, "" without one
    token: str  # the Bearer token, "" without one


class _Token(HttpBearer):
    """ninja's Bearer parsing (the API authenticates with a subclass of it, apps/accounts/api.py),
    giving back the token it read."""

    def authenticate(self, request: HttpRequest, token: str) -> str:
        return token


def credentials(method: str, path: str, headers: list[tuple[bytes, bytes]]) -> Credentials | None:
    """The session cookie and token `headers` (lower-case names, as in an ASGI scope) carry as
    Django and ninja read them; None when they carry neither."""
    scope = {"type": "http", "method": method, "path": path, "headers": headers}
    request = ASGIRequest(scope, io.BytesIO())
    found = Credentials(
        request.COOKIES.get(settings.SESSION_COOKIE_NAME, ""), _Token()(request) or ""
    )
    return found if any(found) else None


def signed_in(found: Credentials) -> bool:
    """Whether the token is a live one or the session is a signed-in person's, checked as the API
    and Django's authentication check them. Blocking (database reads): call it off the event
    loop."""
    if found.token and ApiToken.objects.holding(found.token).exists():
        return True
    if not found.session:
        return False
    store = import_module(settings.SESSION_ENGINE).SessionStore(found.session)
    return auth.get_user(SimpleNamespace(session=store)).is_authenticated
