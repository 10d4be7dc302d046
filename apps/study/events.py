"""The Study Hub's progress events, one call site each, so badges follow quizzes and workshops.

apps.progress.tracking records them and evaluates badges; tracking must never cost a quiz
result or a lesson, so nothing here raises.
"""

import logging

from django.urls import reverse

from apps.progress import tracking
from apps.study.quizzes.models import Attempt
from apps.study.sources import sources_for

log = logging.getLogger(__name__)


def _record(name: str, user, **values) -> list:
    try:
        return list(getattr(tracking, name)(user, **values) or [])
    except Exception:  # tracking never raises by contract; if it does, the study flow goes on
        log.exception("progress event %s failed", name)
        return []


def quiz_completed(attempt: Attempt) -> list:
    owner = attempt.quiz.owner
    wrong = []
    for question, _chosen, right in attempt.results():
        if right:
            continue
        missed = {"question": question.text}
        chunk = next(iter(sources_for(owner, question.chunk_ids)), None)
        if chunk is not None:
            page = f", p. {chunk.page}" if chunk.page else ""
            missed["source_label"] = f"{chunk.document.filename}{page}"
            missed["source_url"] = reverse("study:source", args=[chunk.pk])
        wrong.append(missed)
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
