"""The kinds of study material a worker makes (a quiz, a workshop and its lessons, a deck, a
mindmap). Each feature package declares its kind once, in its `kind.py`, which StudyConfig.ready
imports; the shared pages and API routes, the worker, class sets and the stale counts read this
registry, so a new kind is one new package."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.dispatch import Signal
from django.urls import reverse


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
    # Refreshes only the item's parts whose source changed; how many.
    refresh: Callable[[Any], int] | None = None
    # The page a refresh goes back to when it is not the item's own (a URL name, no argument).
    refreshed_url: str = ""
    # What the generation card says once the item is ready, when fewer items came.
    shortfall: Callable[[Any], Shortfall] | None = None
    # What its parts citing a source are called ("questions"), and, per person, the chunk ids
    # each part cites (one list a part), for the stale counts.
    parts: str = ""
    cited: Callable[[Any], list[list[int]]] | None = None
    # A teacher can hand it out to the class (a ClassSet names it by this kind and its pk).
    handed_out: bool = False

    def url(self, item) -> str:
        return reverse(self.detail_url, args=[item.pk])

    def refreshed_page(self, item) -> str:
        return reverse(self.refreshed_url) if self.refreshed_url else self.url(item)


KINDS: dict[str, Kind] = {}

# Sent with each kind as it is registered (`kind=`): class sets follow its deletes.
declared = Signal()


def register(kind: Kind) -> Kind:
    KINDS[kind.name] = kind
    declared.send(sender=Kind, kind=kind)
    return kind


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
    return [kind for kind in KINDS.values() if kind.handed_out]


def with_pages() -> list[Kind]:
    """The kinds with a page of their own (a card shows one being made, a refresh goes back)."""
    return [kind for kind in KINDS.values() if kind.detail_url]
