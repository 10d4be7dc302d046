"""Wrong passwords, counted by django-axes per username and address together, so a student's
guesses at `teacher` lock only that student's machine out of that account; many failures from
one address (for any accounts) lock the address too, a little later.

A teacher lifts a student's lockout from the Classroom page (`unlock`).
"""

from collections.abc import Iterable
from datetime import datetime

from axes.attempts import get_cool_off_threshold
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_cool_off, get_failure_limit
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Sum
from django.utils import timezone

from apps.accounts.models import User


def recent_attempts(since: datetime | None = None):
    """Failures still counted: those since `since`, by default within the cool-off (15 minutes)."""
    since = since or timezone.now() - get_cool_off()
    return AccessAttempt.objects.filter(attempt_time__gte=since)


class PairLockoutHandler(AxesDatabaseHandler):
    """AXES_LOCKOUT_PARAMETERS count the pair; this adds the address's own, higher bound."""

    def get_failures(self, request, credentials: dict | None = None) -> int:
        pair = super().get_failures(request, credentials)
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
