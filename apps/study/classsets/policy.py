"""When a student may attempt a quiz handed out to the class, and when they see their marks and
its answers.

A quiz's owner answers it as they like: no limit, no due date, the marks and answers after each
attempt. A class set chooses for the class: attempts allowed, how they are graded, when the
marks show (a score per attempt would give the key away to a student changing one answer per
attempt), when the answer key shows, and a due date after which no attempt starts.
"""

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.formats import date_format

from apps.study.errors import StudyError


class Grading(models.TextChoices):
    FIRST = "first", "First attempt"
    BEST = "best", "Best attempt"
    AVERAGE = "average", "Average of the attempts"
    LATEST = "latest", "Latest attempt"


class Reveal(models.TextChoices):
    AFTER_DUE = "after_due", "After the due date, or when I release them"
    AFTER_ATTEMPT = "after_attempt", "After each attempt"
    NEVER = "never", "Never (unless I release them)"


class Marks(models.TextChoices):
    """When a student sees how many answers they got right: the score of each attempt."""

    AFTER_ATTEMPT = "after_attempt", "After each attempt"
    AFTER_DUE = "after_due", "After the due date, or when I release the answers"
    NEVER = "never", "Never (unless I release the answers)"


# The moments either shows at, earliest first (Marks and Reveal share them): the answers tell
# the marks, so the marks show no later than the answers.
MOMENTS = ("after_attempt", "after_due", "never")


def default_marks(attempts: int | None, reveal: str) -> str:
    """The marks after each attempt when one attempt is allowed (no retake can use them) or the
    answers show after each anyway; otherwise after the due date, as the answers."""
    if attempts == 1 or reveal == Reveal.AFTER_ATTEMPT:
        return Marks.AFTER_ATTEMPT
    return Marks.AFTER_DUE


class AttemptRefused(StudyError):
    """An attempt the policy does not allow: none left, or past the due date."""

    status = 409


@dataclass(frozen=True)
class QuizPolicy:
    attempts: int | None = None  # allowed; None: unlimited
    grading: str = Grading.LATEST
    reveal: str = Reveal.AFTER_ATTEMPT
    marks: str = Marks.AFTER_ATTEMPT
    due: date | None = None
    released: bool = False
    for_class: bool = False  # a student on a class set (shuffled, limited); else the owner
    zone: tzinfo | None = None  # the teacher's, in which the due day ends

    @property
    def deadline(self) -> datetime | None:
        """The moment the due day ends in the teacher's zone (a student's own zone, which they
        set, must not move the deadline)."""
        if self.due is None:
            return None
        end = datetime.combine(self.due + timedelta(days=1), time.min)
        return timezone.make_aware(end, self.zone or timezone.get_default_timezone())

    def attempts_left(self, submitted: int) -> int | None:
        return None if self.attempts is None else max(0, self.attempts - submitted)

    def check_start(self, submitted: int, now: datetime) -> None:
        """Refuse a new attempt past the due date or beyond the attempts allowed."""
        if self.deadline is not None and now >= self.deadline:
            day = date_format(self.due, "j F Y")
            raise AttemptRefused(f"This quiz was due on {day}: no new attempt starts.")
        if self.attempts_left(submitted) == 0:
            allowed = "1 attempt" if self.attempts == 1 else f"{self.attempts} attempts"
            raise AttemptRefused(f"You have used the {allowed} this quiz allows.")

    @property
    def closed_at(self) -> datetime | None:
        """When the last attempt allowed must be in: the deadline and its grace period."""
        grace = timedelta(minutes=settings.CLASS_SET_GRACE_MINUTES)
        return self.deadline + grace if self.deadline else None

    def check_finish(self, started_at: datetime, now: datetime) -> None:
        """An attempt started before the deadline may still be answered and submitted
        within the grace period after it (CLASS_SET_GRACE_MINUTES)."""
        if self.deadline is None:
            return
        if started_at >= self.deadline or now >= self.closed_at:
            day = date_format(self.due, "j F Y")
            raise AttemptRefused(f"This quiz was due on {day}: the time to finish it is over.")

    def shown(self, moment: str, now: datetime) -> bool:
        """Whether what shows at `moment` (a Reveal or Marks value) shows now: released, the
        owner's, after each attempt, or after the due date once no one may still hand an
        attempt in."""
        if not self.for_class or self.released or moment == Reveal.AFTER_ATTEMPT:
            return True
        if moment == Reveal.AFTER_DUE:
            return self.closed_at is not None and now >= self.closed_at
        return False

    def when_shown(self, moment: str, what: str, now: datetime) -> str:
        """For the student: when `what` ("Your marks", "The correct answers") shows."""
        if moment == Reveal.AFTER_ATTEMPT and not self.released:
            return f"{what} show after each attempt."
        if self.shown(moment, now):
            return f"{what} show in your reviews."
        if moment == Reveal.AFTER_DUE and self.due:
            day = date_format(self.due, "j F Y")
            return f"{what} show after the due date ({day}) or once released."
        if moment == Reveal.AFTER_DUE:
            return f"{what} show once your teacher releases the answers."
        return f"{what} show only if your teacher releases the answers."

    def when_revealed(self, now: datetime) -> str:
        """For the student: when their marks and the correct answers show, in one sentence when
        both show at once."""
        if self.marks == self.reveal:
            return self.when_shown(self.reveal, "Your marks and the correct answers", now)
        marks = self.when_shown(self.marks, "Your marks", now)
        return f"{marks} {self.when_shown(self.reveal, 'The correct answers', now)}"
