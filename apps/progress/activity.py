"""A person's study activity counted by local day: time, sessions, messages, streaks, heatmap.

Sessions are stored in UTC; a session that crosses local midnight gives each day its share,
and all arithmetic happens in UTC so a DST change never adds or loses an hour.
"""

import contextlib
import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import cached_property
from typing import TypeVar
from zoneinfo import ZoneInfo

import redis
from django.core.cache import cache
from django.db.models import Count, Max
from django.utils import timezone

from apps.progress.models import EarnedBadge, Event, LocalZone, StudySession

log = logging.getLogger(__name__)
T = TypeVar("T")

HEATMAP_DAYS = 90
HEATMAP_WEEKS = 13  # 13 columns × 7 rows = 91 cells: the one before the 90 days stays blank
# Upper bounds (seconds, exclusive) of levels 1-3; anything above is level 4.
LEVEL_BOUNDS = (15 * 60, 60 * 60, 3 * 60 * 60)
EARLIEST_DAY = date(2000, 1, 1)
# Figures are kept under the person's events as they stand, so each event leaves the last ones
# behind unread: an hour lets those go soon; a dashboard opened later counts once more.
FIGURES_SECONDS = 3600


def level_for(seconds: float, sessions: int) -> int:
    """0 for a day without study; a day with a single message (0 s) is still a check-in (1)."""
    if not sessions and not seconds:
        return 0
    return 1 + sum(seconds >= bound for bound in LEVEL_BOUNDS)


def local_midnight(day: date, zone: ZoneInfo) -> datetime:
    return datetime.combine(day, time(), tzinfo=zone).astimezone(UTC)


@dataclass
class Day:
    date: date
    seconds: int = 0
    sessions: int = 0
    messages: int = 0
    in_window: bool = True

    @property
    def level(self) -> int:
        return level_for(self.seconds, self.sessions)


@dataclass
class MessageFigures:
    """What the figures need from a person's messages, counted in one zone: a few hundred
    numbers instead of every message, kept in the cache until their next event."""

    count: int
    scoped: int
    with_attachments: int
    per_day: dict[date, int]
    sessions_by_hour: dict[int, set[int]]  # local hour: the sessions with a message in it


@dataclass
class SessionFigures:
    """What the figures need from a person's sessions, counted in one zone."""

    count: int
    total_seconds: int
    longest_seconds: int
    per_day: dict[date, tuple[int, int]]  # local day: (seconds, sessions) that day


def kept(key: str, compute: Callable[[], T]) -> T:
    """`compute()`, kept in the cache (Redis, shared by the web processes) under `key`."""
    try:
        value = cache.get(key)
    except redis.RedisError as error:  # Redis down: slower, not broken (health says so)
        log.warning("study figures not cached: %s", error)
        return compute()
    if value is None:
        value = compute()
        with contextlib.suppress(redis.RedisError):
            cache.set(key, value, FIGURES_SECONDS)
    return value


def current_run(dates: set[date], today: date) -> int:
    """Days in a row up to today; a streak is not broken until a whole day is missed."""
    day = today if today in dates else today - timedelta(days=1)
    streak = 0
    while day in dates:
        streak += 1
        day -= timedelta(days=1)
    return streak


def longest_run(dates: set[date]) -> int:
    best = run = 0
    previous = None
    for day in sorted(dates):
        run = run + 1 if previous is not None and day - previous == timedelta(days=1) else 1
        best = max(best, run)
        previous = day
    return best


class Activity:
    """Figures for one person in their zone. Reads lazily; build one per request."""

    def __init__(self, user, *, zone: ZoneInfo | None = None, now: datetime | None = None):
        self.user = user
        self.zone = zone or LocalZone.objects.zone_for(user)
        self.now = now or timezone.now()

    @cached_property
    def today(self) -> date:
        return self.now.astimezone(self.zone).date()

    def local(self, moment: datetime) -> datetime:
        return moment.astimezone(self.zone)

    # --- raw rows --------------------------------------------------------------------------

    @cached_property
    def sessions(self) -> list[tuple[int, datetime, datetime]]:
        return list(
            StudySession.objects.visible_to(self.user)
            .order_by("started_at")
            .values_list("pk", "started_at", "ended_at")
        )

    @cached_property
    def messages(self) -> list[tuple[datetime, int | None, bool, int]]:
        return list(
            Event.objects.visible_to(self.user)
            .filter(kind=Event.Kind.MESSAGE)
            .order_by("at")
            .values_list("at", "session_id", "scope_used", "attachments")
        )

    @cached_property
    def version(self) -> str:
        """Names the person's events as they stand. An event is only ever added (with a higher
        id) or deleted with its person, so their number, the last id and the latest time change
        with each one: figures counted from events are kept in the cache under it."""
        seen = Event.objects.visible_to(self.user).aggregate(
            count=Count("pk"), last=Max("pk"), latest=Max("at")
        )
        latest = seen["latest"].timestamp() if seen["latest"] else 0
        return f"{self.user.pk}:{seen['count']}:{seen['last']}:{latest}"

    @cached_property
    def message_figures(self) -> MessageFigures:
        key = f"progress:messages:{self.version}:{self.zone.key}"
        return MessageFigures(*kept(key, self.count_messages))

    def count_messages(self) -> tuple:
        """MessageFigures' fields, counted from every message (plain values for the cache)."""
        per_day: Counter[date] = Counter()
        sessions_by_hour: dict[int, set[int]] = {}
        for at, session, *_ in self.messages:
            moment = self.local(at)
            per_day[moment.date()] += 1
            if session is not None:
                sessions_by_hour.setdefault(moment.hour, set()).add(session)
        return (
            len(self.messages),
            sum(scoped for _, _, scoped, _ in self.messages),
            sum(attachments > 0 for *_, attachments in self.messages),
            dict(per_day),
            sessions_by_hour,
        )

    # --- totals and streaks ----------------------------------------------------------------

    @cached_property
    def session_figures(self) -> SessionFigures:
        # Sessions change only when a message is recorded, in its transaction: the events'
        # version names them too.
        key = f"progress:sessions:{self.version}:{self.zone.key}"
        return SessionFigures(*kept(key, self.count_sessions))

    def count_sessions(self) -> tuple:
        """SessionFigures' fields from every session; time split at local midnights."""
        per_day: dict[date, tuple[int, int]] = {}
        for _, started, ended in self.sessions:
            day = self.local(started).date()
            while True:
                day_start = local_midnight(day, self.zone)
                day_end = local_midnight(day + timedelta(days=1), self.zone)
                # A session ending exactly at midnight does not spill into the next day.
                if ended < day_start or (ended == day_start and started < day_start):
                    break
                overlap = int((min(ended, day_end) - max(started, day_start)).total_seconds())
                seconds, sessions = per_day.get(day, (0, 0))
                per_day[day] = (seconds + overlap, sessions + 1)
                day += timedelta(days=1)
        durations = [(end - start).total_seconds() for _, start, end in self.sessions]
        return len(durations), int(sum(durations)), int(max(durations, default=0)), per_day

    @property
    def session_count(self) -> int:
        return self.session_figures.count

    @property
    def total_seconds(self) -> int:
        return self.session_figures.total_seconds

    @property
    def longest_session_seconds(self) -> int:
        return self.session_figures.longest_seconds

    @cached_property
    def messages_per_day(self) -> dict[date, int]:
        return self.message_figures.per_day

    @cached_property
    def active_dates(self) -> set[date]:
        return set(self.messages_per_day)

    @cached_property
    def current_streak(self) -> int:
        return current_run(self.active_dates, self.today)

    @cached_property
    def longest_streak(self) -> int:
        return longest_run(self.active_dates)

    def sessions_with_messages_in_hours(self, hours: set[int]) -> int:
        by_hour = self.message_figures.sessions_by_hour
        return len(set().union(*(by_hour.get(hour, ()) for hour in hours)))

    # --- days ------------------------------------------------------------------------------

    def days(self, first: date, last: date) -> list[Day]:
        """Every local day from first to last, time split at local midnights."""
        per_day, messages = self.session_figures.per_day, self.messages_per_day
        dates = (first + timedelta(days=n) for n in range((last - first).days + 1))
        return [Day(day, *per_day.get(day, (0, 0)), messages.get(day, 0)) for day in dates]

    @property
    def last_day_shown(self) -> date:
        """Tomorrow: a zone ahead of the person's is already there."""
        return self.today + timedelta(days=1)

    def can_show(self, day: date) -> bool:
        """Days one may ask about: none before 2000, none after tomorrow (a zone ahead)."""
        return EARLIEST_DAY <= day <= self.last_day_shown

    def day(self, day: date) -> Day:
        return self.days(day, day)[0]

    @cached_property
    def heatmap_first_day(self) -> date:
        return self.today - timedelta(days=HEATMAP_DAYS - 1)

    def heatmap_days(self) -> list[Day]:
        """Exactly the 90 days ending today."""
        return self.days(self.heatmap_first_day, self.today)

    def heatmap_weeks(self) -> list[list[Day]]:
        """13 columns of 7 days, oldest first; today is the last cell. The single cell before
        the 90-day window keeps the grid whole and is drawn blank."""
        blank = Day(self.heatmap_first_day - timedelta(days=1), in_window=False)
        cells = [blank, *self.heatmap_days()]
        return [cells[week * 7 : week * 7 + 7] for week in range(HEATMAP_WEEKS)]

    def earned_on(self, day: date):
        return (
            EarnedBadge.objects.visible_to(self.user)
            .filter(
                earned_at__gte=local_midnight(day, self.zone),
                earned_at__lt=local_midnight(day + timedelta(days=1), self.zone),
            )
            .select_related("badge")
        )
