"""A login card's secret (docs/classroom.md#login-cards): a random key the card carries with
the student's id, signed with SECRET_KEY; the database keeps only the key's SHA-256. Checking a
card is apps/accounts/login_cards.py."""

import hashlib
import secrets

from django.core import signing

SIGNER = signing.Signer(salt="apps.accounts.badge")


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def new_card(user_pk: int) -> tuple[str, str]:
    """(the card's token, the hash to store) for a new card of the user `user_pk`."""
    key = secrets.token_urlsafe(16)
    return SIGNER.sign(f"{user_pk}.{key}"), key_hash(key)


def opened(token: str) -> tuple[int | None, str]:
    """The user id and key a correctly signed card carries; (None, "") for any other."""
    try:
        pk, _, key = SIGNER.unsign(token).partition(".")
    except signing.BadSignature:
        return None, ""
    return (int(pk), key) if pk.isdigit() and key else (None, "")
