"""Wrong passwords, counted by django-axes per username and address together, so a student's
guesses at `teacher` lock only that student's machine out of that account; many failures from
one address (for any accounts) lock the address's passwords too, a little later, but not its
login cards: a card's key cannot be guessed, and a class behind one address (a school's NAT)
logs in by card while one student's guesses keep the address locked.

A teacher lifts a student's lockout from the Classroom page (`unlock`).
"""

import math
from collections.abc import Iterable
from datetime import datetime

from axes.attempts import get_cool_off_threshold
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_cool_off, get_failure_limit
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Max, Sum
from django.utils import timezone

from apps.accounts.models import User


def recent_attempts(since: datetime | None = None):
    """Failures still counted: those since `since`, by default within the cool-off (15 minutes)."""
    since = since or timezone.now() - get_cool_off()
    return AccessAttempt.objects.filter(attempt_time__gte=since)


class PairLockoutHandler(AxesDatabaseHandler):
    """AXES_LOCKOUT_PARAMETERS count the pair; this adds the address's own, higher bound for
    passwords."""

    def get_failures(self, request, credentials: dict | None = None) -> int:
        pair = super().get_failures(request, credentials)
        if (credentials or {}).get("badge"):
            return pair
        threshold = get_cool_off_threshold(request)
        from_address = (
            recent_attempts(threshold)
            .filter(ip_address=request.axes_ip_address)
            .aggregate(total=Sum("failures_since_start"))["total"]
            or 0
        )
        if from_address >= settings.AXES_ADDRESS_FAILURE_LIMIT:
            return max(pair, get_failure_limit(request, credentials))
        return pair


def seconds_locked(ip_address: str, username: str | None) -> int:
    """How long the lockout of this account on this address (or of the address) has to run: the
    cool-off from the last failure that counted. Tries while locked count no more
    (AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT), so they do not start it again."""
    attempts = recent_attempts().filter(ip_address=ip_address)
    locking = attempts.filter(
        username=username, failures_since_start__gte=settings.AXES_FAILURE_LIMIT
    )
    total = attempts.aggregate(total=Sum("failures_since_start"))["total"] or 0
    if total >= settings.AXES_ADDRESS_FAILURE_LIMIT:
        locking = attempts
    latest = locking.aggregate(latest=Max("attempt_time"))["latest"] or timezone.now()
    left = (latest + get_cool_off() - timezone.now()).total_seconds()
    return max(1, math.ceil(left))


def locked_usernames(usernames: Iterable[str]) -> set[str]:
    """Which of these accounts are locked from at least one address."""
    return set(
        recent_attempts()
        .filter(username__in=list(usernames), failures_since_start__gte=settings.AXES_FAILURE_LIMIT)
        .values_list("username", flat=True)
    )


def unlock(user: User) -> None:
    """Forget the account's failures from every address; their address counts drop with them."""
    AccessAttempt.objects.filter(username=user.get_username()).delete()
