"""Decks under /api/v1/study/decks: generate or bring cards, edit, review, export."""

from datetime import datetime
from typing import Annotated, Literal

from django.http import HttpRequest
from django.utils import timezone
from ninja import Field, File, Router, Schema, Status
from ninja.files import UploadedFile

from apps.accounts import ratelimits
from apps.accounts.api import ErrorOut, Id, Said, said
from apps.study import starting
from apps.study.classsets.models import ClassSet
from apps.study.flashcards import deck_imports, decks, exports, generation, scheduling
from apps.study.flashcards.models import Card, CardReview, Deck
from apps.study.flashcards.stale import refresh_deck as refresh_stale
from apps.study.flashcards.stale import stale_cards
from apps.study.ownership import get_visible
from apps.study.schemas import (
    STARTING_ERRORS,
    GenerationStatus,
    IdempotencyKey,
    RefreshOut,
    ScopeIn,
    StartedOut,
    checked_by_the_rule,
)
from apps.study.views import download

router = Router(tags=["study"])


class CardIn(Schema):
    front: Said = said(Card.MAX_SIDE)
    back: Said = said(Card.MAX_SIDE)


class CardPatch(Schema):
    front: Said | None = said(Card.MAX_SIDE, default=None)
    back: Said | None = said(Card.MAX_SIDE, default=None)


NO_CARD_CHANGE = CardPatch()  # a PATCH without a body (see DeckPatch)


class DeckIn(ScopeIn):
    """Generate from the vault (`num_cards` and a scope), or bring the `cards` yourself."""

    title: str = Field("", max_length=200)
    num_cards: Literal[10, 20, 40] = 10
    # How many a deck holds is create_deck's rule (DeckFull), the same for pages and the API.
    cards: list[CardIn] | None = Field(None, min_length=1)


# A PATCH without a body (or a title) changes nothing and answers with the deck, so someone
# else's deck or card answers 404 to it. A body that does not fit the schema is a 422 before
# any lookup, the same for every id, so it tells an intruder nothing either.
class DeckPatch(Schema):
    title: Said | None = said(200, default=None)


NO_DECK_CHANGE = DeckPatch()


class CardOut(Schema):
    id: Id
    position: int
    front: str
    back: str
    chunk_id: Id | None
    extractive: bool  # cut from its chunk by the extractive generator
    source_changed: bool = False  # the passage it was made from was retired by re-ingestion
    state: Literal["learning", "review", "relearning"]
    due_at: datetime
    last_review_at: datetime | None
    mastered: bool
    flips: int

    @staticmethod
    def resolve_state(card: Card) -> str:
        return Card.State(card.state).name.lower()


class DeckSummaryOut(Schema):
    id: Id
    status: GenerationStatus  # a generated deck's cards are here once it is ready
    error: str
    title: str
    created_at: datetime
    card_count: int
    mastered_count: int
    due_count: int


class DeckOut(DeckSummaryOut):
    category_ids: list[Id]
    document_ids: list[Id]
    cards: list[CardOut]


class ReviewIn(Schema):
    outcome: Annotated[str, checked_by_the_rule(enum=CardReview.Outcome.values)]


class ReviewOut(Schema):
    card: CardOut
    deck_mastered: bool


def card_out(card: Card, user) -> Card:
    """The card with `user`'s own memory of it (state, due time, mastered, flips)."""
    memory = scheduling.memory_of(card, user)
    for field in ("state", "due_at", "last_review_at", "mastered", "flips"):
        setattr(card, field, getattr(memory, field))
    return card


def deck_out(deck: Deck, user) -> dict:
    now = timezone.now()
    cards = [card_out(card, user) for card in deck.cards.select_related("deck")]
    owner = deck.owner_id == user.pk
    changed = {card.pk for card in stale_cards(deck)} if owner else set()
    for card in cards:
        card.source_changed = card.pk in changed
    return {
        **{f: getattr(deck, f) for f in DeckOut.model_fields if hasattr(deck, f)},
        "card_count": len(cards),
        "mastered_count": sum(card.mastered for card in cards),
        "due_count": sum(card.due_at <= now for card in cards),
        "cards": cards,
    }


@router.get("/decks", response=list[DeckSummaryOut])
def list_decks(request: HttpRequest):
    return Deck.objects.visible_to(request.auth).settled().with_counts(timezone.now())


@router.post(
    "/decks",
    response={201: DeckOut, 202: StartedOut, 413: ErrorOut, 422: ErrorOut, **STARTING_ERRORS},
)
def create_deck(request: HttpRequest, payload: DeckIn, key: IdempotencyKey = ""):
    """Cards you bring make the deck at once (201); a deck from the vault is started (202) and
    a worker makes it: GET it until `status` is ready."""
    school_class = starting.class_for(request.auth, payload.for_class, payload.class_id)
    if payload.cards is not None:
        cards = [card.dict() for card in payload.cards]
        deck, _badges = decks.create_deck(
            request.auth, payload.title or "Deck", cards, now=timezone.now()
        )
        if school_class:
            ClassSet.objects.hand_out(request.auth, deck, school_class)
        return Status(201, deck_out(deck, request.auth))
    deck = starting.start(
        request,
        "deck",
        request.auth,
        key,
        generation.start_deck,
        for_class=school_class,
        num_cards=payload.num_cards,
        scope=payload.scope,
        method=payload.method,
        title=payload.title.strip(),
    )
    return Status(202, deck)


@router.get("/decks/due", response=list[CardOut])
def due_cards(request: HttpRequest):
    """Cards due now across all your decks and those handed out to your class, the most
    overdue first, each with your own schedule."""
    cards = Card.objects.readable_by(request.auth).studied_by(request.auth)
    due = cards.due_to_learner(timezone.now()).select_related("deck")
    return [card_out(card, request.auth) for card in due]


# Declared before /decks/{deck_id}, which would take "import" for an id.
class LeftOutOut(Schema):
    index: int  # the note's (or the card's) number in the file, from 1
    type: str  # the Anki note type, or "card"
    reason: str


class DeckImportOut(Schema):
    id: Id
    imported: int
    skipped: list[LeftOutOut]


@router.post(
    "/decks/import", response={201: DeckImportOut, 400: ErrorOut, 413: ErrorOut, 429: ErrorOut}
)
def import_deck(request: HttpRequest, file: File[UploadedFile]):
    """A deck of an Anki package (.apkg: each note's first two fields, a reversed card too,
    pictures kept, review history left behind) or a CSV file (front, back), told apart by its
    content. A file that makes no deck (no cards, more than a deck holds) is a 400, and nothing
    is kept."""
    ratelimits.check(request, "RATE_LIMIT_UPLOADS", "uploads")
    deck, _badges, skipped = deck_imports.import_deck(request.auth, file, now=timezone.now())
    return Status(201, {"id": deck.pk, "imported": deck.cards.count(), "skipped": skipped})


@router.get("/decks/{deck_id}", response={200: DeckOut, 404: ErrorOut})
def get_deck(request: HttpRequest, deck_id: Id):
    deck = get_visible(Deck.objects.readable_by, request.auth, pk=deck_id)
    deck.settle()
    return deck_out(deck, request.auth)


@router.patch("/decks/{deck_id}", response={200: DeckOut, 404: ErrorOut, 422: ErrorOut})
def rename_deck(request: HttpRequest, deck_id: Id, payload: DeckPatch = NO_DECK_CHANGE):
    deck = get_visible(Deck.objects.visible_to, request.auth, pk=deck_id)
    if payload.title is not None:
        deck.rename(payload.title)
    return deck_out(deck, request.auth)


@router.delete("/decks/{deck_id}", response={204: None, 404: ErrorOut})
def delete_deck(request: HttpRequest, deck_id: Id):
    get_visible(Deck.objects.visible_to, request.auth, pk=deck_id).delete()
    return Status(204, None)


@router.post(
    "/decks/{deck_id}/cards", response={201: CardOut, 404: ErrorOut, 413: ErrorOut, 422: ErrorOut}
)
def add_card(request: HttpRequest, deck_id: Id, payload: CardIn):
    deck = get_visible(Deck.objects.visible_to, request.auth, pk=deck_id)
    card = deck.add_card(payload.front, payload.back, now=timezone.now())
    return Status(201, card)


@router.patch(
    "/decks/{deck_id}/cards/{card_id}",
    response={200: CardOut, 404: ErrorOut, 413: ErrorOut, 422: ErrorOut},
)
def edit_card(request: HttpRequest, deck_id: Id, card_id: Id, payload: CardPatch = NO_CARD_CHANGE):
    card = get_visible(Card.objects.visible_to, request.auth, deck_id=deck_id, pk=card_id)
    card.edit(payload.front, payload.back)
    return card


@router.delete("/decks/{deck_id}/cards/{card_id}", response={204: None, 404: ErrorOut})
def delete_card(request: HttpRequest, deck_id: Id, card_id: Id):
    get_visible(Card.objects.visible_to, request.auth, deck_id=deck_id, pk=card_id).delete()
    return Status(204, None)


@router.post(
    "/decks/{deck_id}/cards/{card_id}/review",
    response={200: ReviewOut, 404: ErrorOut, 422: ErrorOut},
)
def review_card(request: HttpRequest, deck_id: Id, card_id: Id, payload: ReviewIn):
    card = get_visible(
        Card.objects.select_related("deck").readable_by, request.auth, deck_id=deck_id, pk=card_id
    )
    scheduling.review(card, payload.outcome, now=timezone.now(), by=request.auth)
    return {
        "card": card_out(card, request.auth),
        "deck_mastered": card.deck.is_mastered(request.auth),
    }


@router.get("/decks/{deck_id}/export.{fmt}", response={200: None, 404: ErrorOut})
def export_deck(request: HttpRequest, deck_id: Id, fmt: Literal["csv", "apkg"]):
    deck = get_visible(Deck.objects.visible_to, request.auth, pk=deck_id)
    return download(deck, fmt, exports.FORMATS, f"deck-{deck.pk}")


@router.post("/decks/{deck_id}/refresh", response={200: RefreshOut, 404: ErrorOut})
def refresh_deck(request: HttpRequest, deck_id: Id):
    """Cut again (or point to the new passage) only the cards whose source changed; their
    review history stays."""
    deck = get_visible(Deck.objects.visible_to, request.auth, pk=deck_id)
    refreshed = refresh_stale(deck)
    return {"refreshed": refreshed, "stale": len(stale_cards(deck))}
