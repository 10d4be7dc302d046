"""The Study Hub's own errors, each with the message for the person and the API's status.

Study code raises these and nothing else for input or state the person can act on. Pages show
the message where the person acted (`show`) and answer 400; the API answers
`{"detail": message}` with the error's `status` through one handler (cognivault_site/api.py).
"""

from django import forms
from django.contrib import messages
from django.http import HttpRequest

PAGE_STATUS = 400


class StudyError(Exception):
    """Something the person can act on; the message says what."""

    status = 400


class InvalidInput(StudyError):
    """Input that cannot be used as sent: a size we do not make, an empty card, a bad tree."""

    status = 422


class QuestionRemoved(InvalidInput):
    """A quiz question removed while it was being changed (a DELETE at the same moment, another
    tab): there is nothing left to change."""

    status = 404


class KeyReused(InvalidInput):
    """A request key (an Idempotency-Key, a form's token) sent again with another request: it
    answers only the request it was first sent with."""


class InvalidAnswers(InvalidInput):
    """Quiz answers that do not fit the quiz: one per question, each one of its options."""


class DeckError(InvalidInput):
    """Input we cannot turn into a deck or a card."""


class DeckFull(DeckError):
    pass


class MindmapError(InvalidInput):
    """A tree we cannot draw, or a change a mindmap cannot take."""


class OverQuota(StudyError):
    """A student's storage quota (User.room_bytes) cannot take what they are making."""

    status = 413


class ImportRefused(StudyError):
    """A file from another tool that cannot be taken (too large, damaged, hostile, nothing in it
    that can be asked here); nothing of it is kept."""


class LessonNotWritten(StudyError):
    status = 409


class WorkshopNotDone(StudyError):
    status = 409


class NotReady(StudyError):
    """Using a quiz, deck, workshop or mindmap a worker is still making, or failed to make."""

    status = 409


class Superseded(StudyError):
    """A worker finished an item that was meanwhile settled as interrupted (its heartbeat
    stopped): what it made is not kept, so a retry never finds the items twice."""

    status = 409


class GenerationError(StudyError):
    """The generator could not make what was asked; the message says why and what to try."""

    status = 502


class EmptyScope(GenerationError):
    status = 400


class ScopeNotFound(EmptyScope):
    """A scope naming a category or document the asker has none of."""

    status = 404


class ModelDown(GenerationError):
    status = 503


class NothingValid(GenerationError):
    status = 502


def show(request: HttpRequest, error: StudyError, form: forms.Form | None = None) -> None:
    """Show `error` where the person acted: on the form they sent (kept as they filled it
    in), else above the page."""
    if form is not None:
        form.add_error(None, str(error))
    else:
        messages.error(request, str(error))
