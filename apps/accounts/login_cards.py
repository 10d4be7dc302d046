"""Login cards: a QR code that logs a student in (docs/classroom.md#login-cards).

The card carries the student's id and their random `badge_key`, signed with SECRET_KEY (Django's
signing, its own salt): a changed id or key fails the signature, so one student's card never
opens another account, and the database alone (which holds the key, not the signature) makes no
card. A new card or a revoked one changes the key, and the old card stops working. Checking a
card costs one HMAC and one query, no password hash."""

from django.contrib.auth.backends import BaseBackend
from django.core import signing
from django.http import HttpRequest
from django.urls import reverse
from django.utils.crypto import constant_time_compare

from apps.accounts.models import User

SIGNER = signing.Signer(salt="apps.accounts.badge")
FIELD = "badge"  # the query parameter and form field; axes masks it in what it records


def token_for(user: User) -> str:
    return SIGNER.sign(f"{user.pk}.{user.badge_key}")


def badge_url(base: str, user: User) -> str:
    """The card's address on this server: `base` is its HTTPS LAN address (apps/accounts/lan.py)."""
    return f"{base}{reverse('accounts:badge_login')}?{FIELD}={token_for(user)}"


def claimed(token: str) -> tuple[User | None, str]:
    """The account a correctly signed card names, and the key it carries."""
    try:
        pk, _, key = SIGNER.unsign(token).partition(".")
    except signing.BadSignature:
        return None, ""
    if not pk.isdigit():
        return None, ""
    return User.objects.filter(pk=int(pk)).first(), key


def holder(token: str | None) -> User | None:
    """The student this card logs in, or None: a forged, revoked or replaced card, a teacher's
    or inactive account."""
    if not token:
        return None
    user, key = claimed(token)
    if (
        user is None
        or not user.is_active
        or not user.may_have_badge
        or not constant_time_compare(user.badge_key, key)
        or not key
    ):
        return None
    return user


class BadgeBackend(BaseBackend):
    """`authenticate(request, badge=...)`: after django-axes' backend, so its lockout applies and
    a card that fails counts for the address (and for the student it names)."""

    def authenticate(self, request: HttpRequest | None, badge: str | None = None, **kwargs):
        return holder(badge) if badge is not None else None

    def get_user(self, user_id: int) -> User | None:
        user = User.objects.filter(pk=user_id).first()
        return user if user is not None and user.is_active and user.may_have_badge else None
