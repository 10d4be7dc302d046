"""The recording API other apps call when a person studies. Stable; add, never change.

Call a function after your own work is saved (after your transaction, or last in it). Each
one records the event in its own savepoint, re-evaluates the badges that event can change,
and returns the badges earned just now, so the page that triggered it can show them::

    from apps.progress import tracking

    new_badges = tracking.record_quiz(
        request.user,
        score_percent=attempt.percent,
        difficulty=quiz.difficulty,                   # "beginner" | "intermediate" | "advanced"
        class_id=class_set.school_class_id,           # None for a quiz of one's own
        questions_wrong=[
            {"question": q.text, "source_label": "biology.pdf, p. 3", "source_url": "/vault/…"},
        ],
    )
    # in the template: {% include "progress/new_badges.html" with badges=new_badges %}

Functions (all keyword-only after `user`; `at` defaults to now, naive times are UTC):

- ``record_message(user, *, at=None, scope_used=False, attachments=0)`` — a chat message;
  extends the open study session or opens one after STUDY_SESSION_IDLE_GAP_SECONDS.
- ``record_quiz(user, *, score_percent, difficulty, class_id=None, questions_wrong=(),
  at=None)`` — a quiz attempt was submitted; ``class_id`` is the class it was handed out to
  (its class set's), None for a quiz of one's own. ``questions_wrong`` holds mappings with
  ``question`` (text) and optionally ``source_label`` and ``source_url`` (a site-relative link
  to the passage; other URLs are dropped). They are kept for a class's quiz only, and that
  class's teachers see them on its class overview; a quiz of one's own keeps none.
- ``record_outline(user)`` — a workshop outline was generated.
- ``record_lesson_completed(user)`` / ``record_workshop_completed(user)``.
- ``record_deck_created(user)``.
- ``record_card_flip(user, *, mastered_deck=False)`` — ``mastered_deck=True`` when this
  review made every card of its deck "got it".
- ``record_mindmap_created(user)`` / ``record_mindmap_exported(user)``.

None of them ever raises into the caller: a failure is logged and returns ``[]``. Nothing
here imports the chat or study apps; events carry plain values only.
"""

import contextlib
import logging
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime

from django.db import transaction
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme

from apps.progress.badges import evaluate
from apps.progress.models import EarnedBadge, Event, MissedQuestion, StudySession

logger = logging.getLogger(__name__)

Kind = Event.Kind
MAX_QUESTION_CHARS = 2000


def _moment(at: datetime | None) -> datetime:
    if at is None:
        return timezone.now()
    return at if timezone.is_aware(at) else at.replace(tzinfo=UTC)


def _safe_link(url: str) -> str:
    """Only links inside this site: a question's source must never become javascript: or an
    outside address."""
    url = str(url or "").strip()
    if url.startswith("/") and url_has_allowed_host_and_scheme(url, allowed_hosts=None):
        return url[:500]
    return ""


def _record(
    user, kind: str, at: datetime | None, *, missed: Iterable[Mapping] = (), **fields
) -> list[EarnedBadge]:
    if user is None or not getattr(user, "is_authenticated", False) or user.pk is None:
        return []
    try:
        moment = _moment(at)
        with transaction.atomic():
            session = (
                StudySession.objects.extend_or_open(user, moment) if kind == Kind.MESSAGE else None
            )
            event = Event.objects.create(user=user, kind=kind, at=moment, session=session, **fields)
            MissedQuestion.objects.bulk_create(
                MissedQuestion(
                    event=event,
                    question=str(item.get("question", ""))[:MAX_QUESTION_CHARS],
                    source_label=str(item.get("source_label") or "")[:255],
                    source_url=_safe_link(item.get("source_url")),
                )
                for item in missed
                if isinstance(item, Mapping) and str(item.get("question", "")).strip()
            )
    except Exception:
        logger.exception("Could not record a %s event for user %s", kind, user.pk)
        return []
    # Separately: a broken badge must not lose the event itself. Each award is atomic; the
    # reads before it run outside a transaction of their own, which would hold the database's
    # write lock (SQLite's IMMEDIATE transactions) through them, and every chat answer being
    # saved meanwhile would wait. Inside a caller's transaction a savepoint keeps it usable.
    try:
        in_callers = transaction.get_connection().in_atomic_block
        with transaction.atomic() if in_callers else contextlib.nullcontext():
            return evaluate(user, kinds=[kind], at=moment)
    except Exception:
        logger.exception("Could not evaluate badges after a %s event for user %s", kind, user.pk)
        return []


def record_message(
    user, *, at: datetime | None = None, scope_used: bool = False, attachments: int = 0
) -> list[EarnedBadge]:
    try:
        attachments = max(0, min(int(attachments), 1000))
    except (TypeError, ValueError):
        attachments = 0
    return _record(user, Kind.MESSAGE, at, scope_used=bool(scope_used), attachments=attachments)


def record_quiz(
    user,
    *,
    score_percent: float,
    difficulty: str,
    class_id: int | None = None,
    questions_wrong: Iterable[Mapping] = (),
    at: datetime | None = None,
) -> list[EarnedBadge]:
    try:
        score = max(0.0, min(float(score_percent), 100.0))
        missed = list(questions_wrong or ())
    except (TypeError, ValueError):
        logger.warning("record_quiz got a bad score %r or question list", score_percent)
        return []
    return _record(
        user,
        Kind.QUIZ,
        at,
        missed=missed if class_id is not None else (),
        score_percent=score,
        difficulty=str(difficulty or "").strip().lower()[:20],
        school_class_id=class_id,
    )


def record_outline(user, *, at: datetime | None = None) -> list[EarnedBadge]:
    return _record(user, Kind.OUTLINE, at)


def record_lesson_completed(user, *, at: datetime | None = None) -> list[EarnedBadge]:
    return _record(user, Kind.LESSON, at)


def record_workshop_completed(user, *, at: datetime | None = None) -> list[EarnedBadge]:
    return _record(user, Kind.WORKSHOP, at)


def record_deck_created(user, *, at: datetime | None = None) -> list[EarnedBadge]:
    return _record(user, Kind.DECK, at)


def record_card_flip(
    user, *, mastered_deck: bool = False, at: datetime | None = None
) -> list[EarnedBadge]:
    return _record(user, Kind.CARD_FLIP, at, mastered_deck=bool(mastered_deck))


def record_mindmap_created(user, *, at: datetime | None = None) -> list[EarnedBadge]:
    return _record(user, Kind.MINDMAP, at)


def record_mindmap_exported(user, *, at: datetime | None = None) -> list[EarnedBadge]:
    return _record(user, Kind.MINDMAP_EXPORT, at)
