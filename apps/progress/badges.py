"""The one badge evaluator: computes each metric from the database and awards every enabled
badge whose target is reached. Badges are rows (BadgeDefinition); only metrics are code."""

import hashlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, models, transaction
from django.db.models import Q
from django.utils import timezone

from apps.progress.activity import Activity, kept
from apps.progress.models import BadgeDefinition, EarnedBadge, Event, Metric

logger = logging.getLogger(__name__)

Kind = Event.Kind
NIGHT_HOURS = {22, 23, 0, 1, 2, 3}
EARLY_HOURS = {5, 6, 7}
PASS_PERCENT = 80


@dataclass(frozen=True)
class EventCount:
    """A metric that counts a person's events of a kind (matching `filters`). Metrics reads all
    of them in one query."""

    kind: str
    filters: tuple[tuple[str, object], ...] = ()

    @property
    def condition(self) -> Q:
        return Q(kind=self.kind, **dict(self.filters))

    def __call__(self, activity: Activity) -> int:
        return Event.objects.visible_to(activity.user).filter(self.condition).count()


def count(kind: str, **filters) -> EventCount:
    return EventCount(kind, tuple(filters.items()))


# Each metric: how to compute it, and which events can change it (only those re-evaluate it).
METRICS: dict[str, tuple[Callable[[Activity], int], set[str]]] = {
    Metric.MESSAGES: (lambda a: a.message_figures.count, {Kind.MESSAGE}),
    Metric.MAX_MESSAGES_IN_A_DAY: (
        lambda a: max(a.messages_per_day.values(), default=0),
        {Kind.MESSAGE},
    ),
    Metric.SCOPED_MESSAGES: (lambda a: a.message_figures.scoped, {Kind.MESSAGE}),
    Metric.ATTACHMENT_MESSAGES: (
        lambda a: a.message_figures.with_attachments,
        {Kind.MESSAGE},
    ),
    Metric.SESSIONS: (lambda a: a.session_count, {Kind.MESSAGE}),
    Metric.STUDY_MINUTES: (lambda a: a.total_seconds // 60, {Kind.MESSAGE}),
    Metric.LONGEST_SESSION_MINUTES: (lambda a: a.longest_session_seconds // 60, {Kind.MESSAGE}),
    Metric.LONGEST_STREAK: (lambda a: a.longest_streak, {Kind.MESSAGE}),
    Metric.NIGHT_OWL_SESSIONS: (
        lambda a: a.sessions_with_messages_in_hours(NIGHT_HOURS),
        {Kind.MESSAGE},
    ),
    Metric.EARLY_BIRD_SESSIONS: (
        lambda a: a.sessions_with_messages_in_hours(EARLY_HOURS),
        {Kind.MESSAGE},
    ),
    Metric.QUIZZES: (count(Kind.QUIZ), {Kind.QUIZ}),
    Metric.PERFECT_QUIZZES: (count(Kind.QUIZ, score_percent__gte=100), {Kind.QUIZ}),
    Metric.ADVANCED_QUIZZES_PASSED: (
        count(Kind.QUIZ, difficulty="advanced", score_percent__gte=PASS_PERCENT),
        {Kind.QUIZ},
    ),
    Metric.OUTLINES: (count(Kind.OUTLINE), {Kind.OUTLINE}),
    Metric.LESSONS: (count(Kind.LESSON), {Kind.LESSON}),
    Metric.WORKSHOPS: (count(Kind.WORKSHOP), {Kind.WORKSHOP}),
    Metric.DECKS: (count(Kind.DECK), {Kind.DECK}),
    Metric.CARD_FLIPS: (count(Kind.CARD_FLIP), {Kind.CARD_FLIP}),
    Metric.DECKS_MASTERED: (count(Kind.CARD_FLIP, mastered_deck=True), {Kind.CARD_FLIP}),
    Metric.MINDMAPS: (count(Kind.MINDMAP), {Kind.MINDMAP}),
    Metric.MINDMAP_EXPORTS: (count(Kind.MINDMAP_EXPORT), {Kind.MINDMAP_EXPORT}),
}


COUNTED = {m: compute for m, (compute, _) in METRICS.items() if isinstance(compute, EventCount)}
# Counts kept under another definition of the counting metrics are never read back.
COUNTS_KEY = "progress:counts:" + hashlib.sha256(repr(COUNTED).encode()).hexdigest()[:16]


class Metrics:
    """Metric values for one person, each computed at most once."""

    def __init__(self, activity: Activity):
        self.activity = activity
        self.values: dict[str, int | None] = {}

    def __getitem__(self, metric: str) -> int | None:
        if metric not in self.values:
            entry = METRICS.get(metric)
            if entry is None:
                # A row edited outside the admin's choices: skip it, keep the others working.
                logger.warning("Badge metric %r is unknown; those badges are not evaluated", metric)
                self.values[metric] = None
            elif isinstance(entry[0], EventCount):
                self.values |= self.counts()
            else:
                self.values[metric] = entry[0](self.activity)
        return self.values[metric]

    def counts(self) -> dict[str, int]:
        """Every counting metric at once: one query instead of one each, kept in the cache
        until the person's next event."""
        return kept(f"{COUNTS_KEY}:{self.activity.version}", self.count)

    def count(self) -> dict[str, int]:
        return Event.objects.visible_to(self.activity.user).aggregate(
            **{
                metric: models.Count("pk", filter=compute.condition)
                for metric, compute in COUNTED.items()
            }
        )


def evaluate(
    user, *, kinds: Iterable[str] | None = None, at: datetime | None = None
) -> list[EarnedBadge]:
    """Award every enabled, not yet earned badge whose metric has reached its target.

    `kinds` limits the check to badges whose metric those events can change.
    Returns only the badges earned now."""
    candidates = BadgeDefinition.objects.filter(enabled=True).exclude(earned__user=user)
    if kinds is not None:
        kinds = set(kinds)
        changed = [metric for metric, (_, changed_by) in METRICS.items() if changed_by & kinds]
        candidates = candidates.filter(metric__in=changed)
    metrics = Metrics(Activity(user))
    earned = []
    for badge in candidates:
        value = metrics[badge.metric]
        if value is None or value < badge.target:
            continue
        try:
            with transaction.atomic():
                earned.append(
                    EarnedBadge.objects.create(
                        user=user, badge=badge, earned_at=at or timezone.now()
                    )
                )
        except IntegrityError:
            pass  # a concurrent evaluation awarded it first
    return earned


@dataclass
class BadgeProgress:
    badge: BadgeDefinition
    value: int
    earned: EarnedBadge | None

    @property
    def shown_value(self) -> int:
        return min(self.value, self.badge.target)

    @property
    def unit(self) -> str:
        return Metric(self.badge.metric).label if self.badge.metric in Metric.values else ""


def progress_for(user, activity: Activity | None = None) -> list[BadgeProgress]:
    """Every enabled badge with the person's progress toward it, plus disabled ones they
    already earned (an earned badge is never taken away)."""
    metrics = Metrics(activity or Activity(user))
    earned = {e.badge_id: e for e in EarnedBadge.objects.visible_to(user).select_related("badge")}
    badges = BadgeDefinition.objects.filter(enabled=True) | BadgeDefinition.objects.filter(
        pk__in=earned
    )
    return [
        BadgeProgress(badge, metrics[badge.metric] or 0, earned.get(badge.pk))
        for badge in badges.select_related("next_level").order_by("position", "code")
    ]
