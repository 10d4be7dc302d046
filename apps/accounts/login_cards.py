"""Login cards: a QR code that logs a student in (docs/classroom.md#login-cards).

A card carries the student's id and a random key, signed with SECRET_KEY (Django's signing,
its own salt): a changed id or key fails the signature, so one student's card never opens
another account. The database keeps only the key's SHA-256, so neither it nor a backup makes a
card, and no page can show a card again once its sheet is printed: printing anew makes a new
key, and the old card stops working. Checking a card costs one HMAC, one hash and one query,
no password hash. Every card printed and every login by card is recorded for the student to
see (`CardEvent`)."""

from django.contrib.auth.backends import BaseBackend
from django.http import HttpRequest
from django.urls import reverse
from django.utils.crypto import constant_time_compare

from apps.accounts.card_keys import key_hash, opened
from apps.accounts.models import User

FIELD = "badge"  # the query parameter and form field; axes masks it in what it records


def badge_url(base: str, token: str) -> str:
    """The card's address on this server: `base` is its HTTPS LAN address (apps/accounts/lan.py)."""
    return f"{base}{reverse('accounts:badge_login')}?{FIELD}={token}"


def claimed(token: str) -> tuple[User | None, str]:
    """The account a correctly signed card names, and the key it carries."""
    pk, key = opened(token)
    return (User.objects.filter(pk=pk).first() if pk else None), key


def holder(token: str | None) -> User | None:
    """The student this card logs in, or None: a forged, revoked or replaced card, a teacher's
    or inactive account."""
    if not token:
        return None
    user, key = claimed(token)
    if (
        user is None
        or not key
        or not user.is_active
        or not user.may_have_card
        or not user.card_key_hash
        or not constant_time_compare(user.card_key_hash, key_hash(key))
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
        return user if user is not None and user.is_active and user.may_have_card else None
