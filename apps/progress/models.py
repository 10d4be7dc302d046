"""Study habits: inferred sessions, study events, badge definitions (data) and earned badges.

Everything is stored in UTC; `LocalZone` remembers the zone the person's browser reported, so
days, streaks and night-owl hours are counted in their local time.
"""

import zoneinfo
from datetime import datetime, timedelta
from functools import cache

from django.conf import settings
from django.db import models
from django.utils import timezone

DEFAULT_ZONE = "UTC"


@cache
def known_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


def valid_zone(name: str | None) -> str | None:
    """The IANA name if the tz database knows it exactly; never a path or anything else."""
    return name if name and name in known_zones() else None


class LocalZoneQuerySet(models.QuerySet):
    def zone_for(self, user) -> zoneinfo.ZoneInfo:
        name = self.filter(user=user).values_list("name", flat=True).first()
        return zoneinfo.ZoneInfo(valid_zone(name) or DEFAULT_ZONE)

    def zones_for(self, users) -> dict[int, zoneinfo.ZoneInfo]:
        """`zone_for` of several people in one query, by user id."""
        names = dict(self.filter(user__in=users).values_list("user_id", "name"))
        return {
            user.pk: zoneinfo.ZoneInfo(valid_zone(names.get(user.pk)) or DEFAULT_ZONE)
            for user in users
        }

    def remember(self, user, name: str) -> None:
        self.update_or_create(user=user, defaults={"name": name})


class LocalZone(models.Model):
    """The time zone the person's browser last reported (an IANA name such as Europe/Berlin)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="local_zone"
    )
    name = models.CharField(max_length=64, default=DEFAULT_ZONE)

    objects = LocalZoneQuerySet.as_manager()

    def __str__(self) -> str:
        return self.name


class PersonalQuerySet(models.QuerySet):
    def visible_to(self, user):
        """A person's own rows; a class's figures are read through apps/progress/classroom.py."""
        return self.filter(user=user)


class StudySessionQuerySet(PersonalQuerySet):
    def extend_or_open(self, user, at: datetime) -> "StudySession":
        """A message within the idle gap of the last activity extends that session; otherwise
        it opens a new one. The gap is inclusive: exactly STUDY_SESSION_IDLE_GAP_SECONDS later
        is still the same session."""
        gap = timedelta(seconds=settings.STUDY_SESSION_IDLE_GAP_SECONDS)
        last = self.visible_to(user).filter(started_at__lte=at).order_by("-ended_at").first()
        if last is not None and at - last.ended_at <= gap:
            # A late-arriving earlier message may fall inside the session: never shrink it.
            if at > last.ended_at:
                last.ended_at = at
            last.message_count += 1
            last.save(update_fields=["ended_at", "message_count"])
            return last
        return self.create(user=user, started_at=at, ended_at=at, message_count=1)


class StudySession(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="study_sessions"
    )
    started_at = models.DateTimeField()
    ended_at = models.DateTimeField()
    message_count = models.PositiveIntegerField(default=0)

    objects = StudySessionQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at"]
        indexes = [models.Index(fields=["user", "started_at"])]

    def __str__(self) -> str:
        return f"{self.user} {self.started_at:%Y-%m-%d %H:%M} ({self.duration})"

    @property
    def duration(self) -> timedelta:
        return self.ended_at - self.started_at


class Event(models.Model):
    """One thing a person did. Plain fields only: the study apps' models are never imported."""

    class Kind(models.TextChoices):
        MESSAGE = "message"
        QUIZ = "quiz", "quiz completed"
        OUTLINE = "outline", "workshop outline"
        LESSON = "lesson", "lesson completed"
        WORKSHOP = "workshop", "workshop completed"
        DECK = "deck", "deck created"
        CARD_FLIP = "card_flip", "card flipped"
        MINDMAP = "mindmap", "mindmap created"
        MINDMAP_EXPORT = "mindmap_export", "mindmap exported"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="study_events"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    at = models.DateTimeField(default=timezone.now)
    session = models.ForeignKey(
        StudySession, null=True, blank=True, on_delete=models.SET_NULL, related_name="events"
    )
    scope_used = models.BooleanField(default=False)
    attachments = models.PositiveSmallIntegerField(default=0)
    score_percent = models.FloatField(null=True, blank=True)
    difficulty = models.CharField(max_length=20, blank=True)
    mastered_deck = models.BooleanField(default=False)
    # The class a quiz was handed out to (its class set's), when this is a class's quiz; empty
    # for one's own work, which no teacher's figures ever read beyond counts and scores.
    school_class = models.ForeignKey(
        "classes.SchoolClass",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="study_events",
    )

    objects = PersonalQuerySet.as_manager()

    class Meta:
        ordering = ["-at"]
        indexes = [models.Index(fields=["user", "kind", "at"])]

    def __str__(self) -> str:
        return f"{self.user} {self.kind} {self.at:%Y-%m-%d %H:%M}"


class MissedQuestion(models.Model):
    """A question of a class's quiz someone got wrong, kept as text with a link to its source
    passage for the class overview. A quiz of one's own keeps none here."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="missed_questions")
    question = models.TextField()
    source_label = models.CharField(max_length=255, blank=True)
    source_url = models.CharField(max_length=500, blank=True)

    def __str__(self) -> str:
        return self.question[:80]


class Metric(models.TextChoices):
    """What a badge can count. Each is computed from the database by apps/progress/badges.py."""

    MESSAGES = "messages", "messages sent"
    MAX_MESSAGES_IN_A_DAY = "max_messages_in_a_day", "messages in one day"
    SCOPED_MESSAGES = "scoped_messages", "messages with a scope filter"
    ATTACHMENT_MESSAGES = "attachment_messages", "messages with attachments"
    SESSIONS = "sessions", "study sessions"
    STUDY_MINUTES = "study_minutes", "minutes of study"
    LONGEST_SESSION_MINUTES = "longest_session_minutes", "minutes in one session"
    LONGEST_STREAK = "longest_streak", "days in a row"
    NIGHT_OWL_SESSIONS = "night_owl_sessions", "sessions between 22:00 and 04:00"
    EARLY_BIRD_SESSIONS = "early_bird_sessions", "sessions between 05:00 and 08:00"
    QUIZZES = "quizzes", "quizzes completed"
    PERFECT_QUIZZES = "perfect_quizzes", "quizzes with 100 %"
    ADVANCED_QUIZZES_PASSED = "advanced_quizzes_passed", "advanced quizzes with 80 % or more"
    OUTLINES = "outlines", "workshop outlines"
    LESSONS = "lessons", "lessons completed"
    WORKSHOPS = "workshops", "workshops completed"
    DECKS = "decks", "decks created"
    CARD_FLIPS = "card_flips", "cards flipped"
    DECKS_MASTERED = "decks_mastered", "decks mastered"
    MINDMAPS = "mindmaps", "mindmaps created"
    MINDMAP_EXPORTS = "mindmap_exports", "mindmap exports"


class BadgeDefinition(models.Model):
    """A badge is a row: the metric it watches and the target that earns it."""

    class Category(models.TextChoices):
        CHAT = "chat", "Chat & habits"
        QUIZ = "quiz", "Quizzes"
        WORKSHOP = "workshop", "Workshops"
        FLASHCARDS = "flashcards", "Flashcards"
        MINDMAP = "mindmap", "Mindmaps"

    code = models.SlugField(max_length=50, unique=True, help_text="Stable; never reused.")
    name = models.CharField(max_length=100)
    description = models.CharField(max_length=255)
    icon = models.CharField(max_length=16, help_text="An emoji.")
    category = models.CharField(max_length=20, choices=Category.choices)
    metric = models.CharField(max_length=40, choices=Metric.choices)
    target = models.PositiveIntegerField(help_text="Earned when the metric reaches this value.")
    next_level = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="previous_levels",
        help_text="The badge that comes after this one on its ladder.",
    )
    enabled = models.BooleanField(
        default=True,
        help_text="Disabled badges are neither shown nor awarded; ones already earned are kept.",
    )
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "code"]

    def __str__(self) -> str:
        return f"{self.icon} {self.name}"


class EarnedBadge(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="earned_badges"
    )
    badge = models.ForeignKey(BadgeDefinition, on_delete=models.CASCADE, related_name="earned")
    earned_at = models.DateTimeField(default=timezone.now)

    objects = PersonalQuerySet.as_manager()

    class Meta:
        ordering = ["earned_at", "badge__position"]
        constraints = [
            models.UniqueConstraint(fields=["user", "badge"], name="one_badge_per_person")
        ]

    def __str__(self) -> str:
        return f"{self.user}: {self.badge.code}"
