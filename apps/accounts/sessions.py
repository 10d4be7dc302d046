"""Where a person is logged in: their browser sessions, listed and ended, and the websockets
those sessions opened.

Sessions live in the database (Django's session table); each one notes when and from where it
logged in, so the Classroom page can tell them apart. Every websocket of a person joins the
channel-layer group `account_group(user_id)`; ending sessions sends it a message on which the
sockets of those sessions close.
"""

import hashlib
import logging
from dataclasses import dataclass
from datetime import datetime

import redis
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.signals import user_logged_in
from django.contrib.sessions.models import Session
from django.db import transaction
from django.dispatch import receiver
from django.http import HttpRequest
from django.utils import timezone
from django.utils.dateparse import parse_datetime

log = logging.getLogger(__name__)

SIGNED_OUT = "account.signed_out"  # the channel-layer message type; ChatConsumer handles it
BADGE_BACKEND = "apps.accounts.login_cards.BadgeBackend"  # notes a session a login card opened


@dataclass(frozen=True)
class SessionInfo:
    ref: str  # a digest of the session key: names the session in a form without revealing it
    key: str
    logged_in: datetime | None  # None: a session from before this was noted
    address: str
    browser: str
    expires: datetime
    by_badge: bool  # opened with a login card rather than the password


def account_group(user_id: int) -> str:
    return f"account-{user_id}"


def ref_for(session_key: str) -> str:
    return hashlib.sha256(session_key.encode()).hexdigest()[:16]


@receiver(user_logged_in)
def note_login(sender, request: HttpRequest | None, user, **kwargs) -> None:
    if request is None or not hasattr(request, "session"):
        return
    request.session["logged_in_at"] = timezone.now().isoformat(timespec="seconds")
    request.session["address"] = request.META.get("REMOTE_ADDR", "")
    request.session["browser"] = request.META.get("HTTP_USER_AGENT", "")[:200]


def sessions_by_user(user_ids) -> dict[int, list[SessionInfo]]:
    """The live sessions of these people. Session data is encoded, so every live session is
    read; a classroom has a few hundred at most."""
    wanted = {str(pk) for pk in user_ids}
    found: dict[int, list[SessionInfo]] = {}
    for session in Session.objects.filter(expire_date__gt=timezone.now()):
        data = session.get_decoded()  # {} for a session that cannot be read
        owner = data.get("_auth_user_id")
        if owner not in wanted:
            continue
        found.setdefault(int(owner), []).append(
            SessionInfo(
                ref=ref_for(session.session_key),
                key=session.session_key,
                logged_in=parse_datetime(data.get("logged_in_at", "")),
                address=data.get("address", ""),
                browser=data.get("browser", ""),
                expires=session.expire_date,
                by_badge=data.get(BACKEND_SESSION_KEY) == BADGE_BACKEND,
            )
        )
    return found


def end_sessions(user, refs: set[str] | None = None, *, by_badge: bool = False) -> int:
    """End this person's sessions (all, those named by `refs`, or with `by_badge` those a login
    card opened) and close their sockets."""
    ended = [
        info.key
        for info in sessions_by_user([user.pk]).get(user.pk, [])
        if (refs is None or info.ref in refs) and (info.by_badge or not by_badge)
    ]
    Session.objects.filter(session_key__in=ended).delete()
    keys = None if refs is None and not by_badge else ended
    transaction.on_commit(lambda: close_sockets(user.pk, keys))
    return len(ended)


def close_sockets(user_id: int, session_keys: list[str] | None = None) -> None:
    """Close the person's open websockets: all of them, or those of these sessions."""
    try:
        async_to_sync(get_channel_layer().group_send)(
            account_group(user_id), {"type": SIGNED_OUT, "session_keys": session_keys}
        )
    except (redis.RedisError, OSError) as error:
        # The sessions are gone already: a socket that stays open can read, not log in again.
        log.warning("could not close the websockets of user %s: %s", user_id, error)


def carry_over(session_hashes: dict[int, tuple[str, str]]) -> None:
    """Django binds a session to a hash of the password it was opened with. When a batch's
    printed passwords are stored (apps/accounts/batches.py), the sessions a login card opened
    meanwhile are bound to the new hash, `{user_id: (old, new)}`, so those students stay in."""
    wanted = {str(pk): pair for pk, pair in session_hashes.items()}
    for session in Session.objects.filter(expire_date__gt=timezone.now()):
        data = session.get_decoded()
        old_new = wanted.get(data.get(SESSION_KEY))
        if old_new is None or data.get(HASH_SESSION_KEY) != old_new[0]:
            continue
        data[HASH_SESSION_KEY] = old_new[1]
        Session.objects.filter(pk=session.pk).update(session_data=Session.objects.encode(data))
