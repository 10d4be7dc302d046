"""The kinds of study material a worker makes (a quiz, a workshop and its lessons, a deck, a
mindmap). Each feature package declares its kind once, in its `kind.py`, which StudyConfig.ready
finds and imports; the URL table, the API, the tabs, the worker, class sets and their results
and the stale counts read this registry, so a new kind is one new package."""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from math import inf
from typing import Any

from django.apps import apps
from django.core.exceptions import AppRegistryNotReady
from django.dispatch import Signal
from django.urls import reverse

from apps.accounts.models import User
from apps.vault.models import Chunk


class UnknownKind(LookupError):
    pass


@dataclass(frozen=True)
class Shortfall:
    """Fewer items came than were asked for: how many, and how many the text filled in."""

    made: int
    asked: int
    things: str  # "questions"
    filled: int = 0
    model: bool = True  # the model wrote them (else all were cut from the text)


@dataclass
class Figures:
    """One student's work on an item handed out to the class."""

    student: User
    started: bool = False
    finished: bool = False
    score: int | None = None  # percent: the quiz score, deck mastery, lessons completed
    fraction: float | None = None  # the score unrounded, 0 to 1, where it is not a whole percent
    detail: str = ""
    old_version: bool = False  # the quiz score is from an attempt on an older version
    last_activity: datetime | None = None
    review_days: list = field(default_factory=list)  # a deck's (day, reviews) per day


MOST_MISSED = 10  # the parts a class set's results list


@dataclass
class Missed:
    """A part of an item handed out (a question, a card) that the class gets wrong."""

    item_id: int
    position: int
    text: str
    misses: int
    students: int
    passage: Chunk | None


@dataclass(frozen=True)
class HandOut:
    """How the class's work on a kind a teacher hands out is counted, for the results page."""

    column: str  # what the results table calls a student's figure: "Score"
    # (class set, student): one student's figures on its item, by the set's policy.
    figures: Callable[[Any, User], Figures]
    # (class set, student): what the student sees of their own figures, when it is less than
    # the teacher sees (a quiz's score while its marks are hidden); `figures` otherwise.
    own: Callable[[Any, User], Figures] | None = None
    # (class set, students): the parts the class misses most, worst first.
    missed: Callable[[Any, list], list[Missed]] | None = None
    # (class set, students): every attempt and the question statistics (a quiz's).
    report: Callable[[Any, list], Any] | None = None
    # The template of the kind's own sections of the results page (it reads `report`).
    template: str = ""
    # The most marks an item gives, for a gradebook (a quiz: its questions); else 100.
    out_of: Callable[[Any], int] | None = None


@dataclass(frozen=True)
class Tab:
    label: str  # "Quiz"
    url: str  # the URL name of its list
    position: int  # from the left, among the Study Hub's tabs


@dataclass(frozen=True)
class Kind:
    name: str  # "quiz": in URLs, task arguments and ClassSet.kind
    model: type
    # Makes an item started in "generating" (in a worker): stores its content, ends it ready.
    fill: Callable[[Any], None]
    # What the card of one being made says it does ("Making a quiz of 5 questions").
    making: Callable[[Any], str] = lambda item: f"Making a {item._meta.verbose_name}"
    # The page of one item (a URL name taking its pk); "" for a part of another (a lesson).
    detail_url: str = ""
    # Its pages under /study/ (the URL prefix, the urls module) and its API router under
    # /api/v1/study/ (an import path); none for a part of another.
    urls: tuple[str, str] | None = None
    router: str = ""
    tab: Tab | None = None
    # Refreshes only the item's parts whose source changed; how many.
    refresh: Callable[[Any], int] | None = None
    # The page a refresh goes back to when it is not the item's own (a URL name, no argument).
    refreshed_url: str = ""
    # What the generation card says once the item is ready, when fewer items came.
    shortfall: Callable[[Any], Shortfall] | None = None
    # What its parts citing a source are called ("questions", a field of the stale counts; one
    # of them on a page: "question"), and, per person, the chunk ids each part cites (one list
    # a part), for the stale counts.
    parts: str = ""
    part: str = ""
    cited: Callable[[Any], list[list[int]]] | None = None
    # A teacher can hand it out to the class (a ClassSet names it by this kind and its pk).
    handed_out: HandOut | None = None

    def url(self, item) -> str:
        return reverse(self.detail_url, args=[item.pk])


KINDS: dict[str, Kind] = {}

# Sent with each kind as it is registered (`kind=`): class sets follow its deletes.
declared = Signal()


def register(kind: Kind) -> Kind:
    KINDS[kind.name] = kind
    declared.send(sender=Kind, kind=kind)
    return kind


def every() -> list[Kind]:
    """Every kind, in the order of their tabs (the URL table and the API are built from them,
    so they are read once each feature declared its own)."""
    if not apps.ready:
        raise AppRegistryNotReady("The kinds of study material are declared once apps are ready.")
    return sorted(KINDS.values(), key=lambda kind: kind.tab.position if kind.tab else inf)


def get(name: str) -> Kind:
    try:
        return KINDS[name]
    except KeyError:
        raise UnknownKind(f"No such kind of study material: {name}.") from None


def of(item) -> Kind:
    """The kind `item` is a row of."""
    return of_model(type(item))


def of_model(model: type) -> Kind:
    """The kind whose rows `model` holds."""
    for kind in KINDS.values():
        if kind.model is model:
            return kind
    raise UnknownKind(f"{model.__name__} is no kind of study material.")


def handed_out() -> list[Kind]:
    """The kinds a teacher hands out to the class."""
    return [kind for kind in every() if kind.handed_out]


def citing() -> list[Kind]:
    """The kinds whose parts cite a source, for the stale counts."""
    return [kind for kind in every() if kind.cited]
