"""Recording study the way the chat and the study hub will, at explicit times."""

from datetime import datetime, timedelta

from apps.progress import tracking
from apps.progress.models import EarnedBadge, LocalZone

GAP = timedelta(seconds=900)


def study(user, start: datetime, seconds: int, **flags) -> None:
    """One session of exactly `seconds`: a message every 15 minutes (the gap) and one at the end."""
    moment = start
    while moment < start + timedelta(seconds=seconds):
        tracking.record_message(user, at=moment, **flags)
        moment += GAP
    tracking.record_message(user, at=start + timedelta(seconds=seconds), **flags)


def earned_codes(user) -> set[str]:
    return set(EarnedBadge.objects.filter(user=user).values_list("badge__code", flat=True))


def live_in(user, zone: str) -> None:
    LocalZone.objects.remember(user, zone)
