"""The Study Hub's progress events, one call site each, so badges follow quizzes and workshops.

apps.progress.tracking records them and evaluates badges; it never raises, and neither do
these: tracking must never cost a quiz result or a lesson.
"""

import logging

from apps.study.models import Attempt

log = logging.getLogger(__name__)


def _tracking():
    try:
        from apps.progress import tracking
    except ImportError:  # the progress app is not installed in this build
        return None
    return tracking


def _record(name: str, user, **values) -> list:
    tracking = _tracking()
    if tracking is None or not hasattr(tracking, name):
        return []
    try:
        return list(getattr(tracking, name)(user, **values) or [])
    except Exception:  # tracking is best effort by contract; log, never break the study flow
        log.exception("progress event %s failed", name)
        return []


def quiz_completed(attempt: Attempt) -> list:
    wrong = [question.text for question, _chosen, right in attempt.results() if not right]
    return _record(
        "record_quiz",
        attempt.quiz.owner,
        score_percent=attempt.percent or 0,
        difficulty=attempt.quiz.difficulty,
        questions_wrong=wrong,
    )


def outline_created(user) -> list:
    return _record("record_outline", user)


def lesson_completed(user) -> list:
    return _record("record_lesson_completed", user)


def workshop_completed(user) -> list:
    return _record("record_workshop_completed", user)


# --- Flashcards and mindmaps ---------------------------------------------------------------


def deck_created(user) -> list:
    return _record("record_deck_created", user)


def card_flipped(user, *, mastered_deck: bool) -> list:
    """One answered card; `mastered_deck` when that answer completed the deck's mastery."""
    return _record("record_card_flip", user, mastered_deck=mastered_deck)


def mindmap_created(user) -> list:
    return _record("record_mindmap_created", user)


def mindmap_exported(user) -> list:
    return _record("record_mindmap_exported", user)
