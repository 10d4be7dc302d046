"""Study Hub REST routes, mounted at /api/v1/study/."""

from django.http import HttpRequest
from ninja import Router

router = Router(tags=["study"])

# --- Flashcards and mindmaps ---------------------------------------------------------------

from datetime import datetime  # noqa: E402
from typing import Literal  # noqa: E402

from django.db import transaction  # noqa: E402
from django.http import HttpResponse  # noqa: E402
from django.shortcuts import get_object_or_404  # noqa: E402
from django.utils import timezone  # noqa: E402
from ninja import Field, Schema, Status  # noqa: E402
from ninja.errors import HttpError  # noqa: E402

from apps.study import flashcards  # noqa: E402
from apps.study import mindmap as drawing  # noqa: E402
from apps.study.models import Card, Deck, Mindmap  # noqa: E402


class CardIn(Schema):
    front: str = Field(..., min_length=1, max_length=Card.MAX_SIDE)
    back: str = Field(..., min_length=1, max_length=Card.MAX_SIDE)


class CardPatch(Schema):
    front: str | None = Field(None, min_length=1, max_length=Card.MAX_SIDE)
    back: str | None = Field(None, min_length=1, max_length=Card.MAX_SIDE)


class DeckIn(Schema):
    """Generate from the vault (`num_cards` and a scope), or bring the `cards` yourself."""

    title: str = Field("", max_length=200)
    num_cards: Literal[10, 20, 40] | None = None
    category_ids: list[int] = []
    document_ids: list[int] = []
    cards: list[CardIn] | None = Field(None, max_length=Deck.MAX_CARDS)


# Bodies of routes on one object validate after the ownership check: someone else's object
# answers 404 whatever was sent.
class DeckPatch(Schema):
    title: str | None = Field(None, min_length=1, max_length=200)


class CardOut(Schema):
    id: int
    position: int
    front: str
    back: str
    chunk_id: int | None
    state: Literal["learning", "review", "relearning"]
    due_at: datetime
    last_review_at: datetime | None
    mastered: bool
    flips: int

    @staticmethod
    def resolve_state(card: Card) -> str:
        return Card.State(card.state).name.lower()


class DeckSummaryOut(Schema):
    id: int
    title: str
    created_at: datetime
    card_count: int
    mastered_count: int
    due_count: int


class DeckOut(DeckSummaryOut):
    category_ids: list[int]
    document_ids: list[int]
    cards: list[CardOut]


class ReviewIn(Schema):
    outcome: Literal["got_it", "review"] | None = None


class ReviewOut(Schema):
    card: CardOut
    deck_mastered: bool


def deck_out(deck: Deck) -> dict:
    now = timezone.now()
    cards = list(deck.cards.all())
    return {
        "id": deck.pk,
        "title": deck.title,
        "created_at": deck.created_at,
        "category_ids": deck.category_ids,
        "document_ids": deck.document_ids,
        "card_count": len(cards),
        "mastered_count": sum(card.mastered for card in cards),
        "due_count": sum(card.due_at <= now for card in cards),
        "cards": cards,
    }


def own_deck(request: HttpRequest, deck_id: int) -> Deck:
    return get_object_or_404(Deck.objects.visible_to(request.auth), pk=deck_id)


def own_card(request: HttpRequest, deck_id: int, card_id: int) -> Card:
    return get_object_or_404(Card.objects.visible_to(request.auth), deck_id=deck_id, pk=card_id)


@router.get("/decks", response=list[DeckSummaryOut])
def list_decks(request: HttpRequest):
    return [
        {
            "id": d.pk,
            "title": d.title,
            "created_at": d.created_at,
            "card_count": d.card_count,
            "mastered_count": d.mastered_count,
            "due_count": d.due_count,
        }
        for d in Deck.objects.visible_to(request.auth).with_counts(timezone.now())
    ]


@router.post("/decks", response={201: DeckOut})
def create_deck(request: HttpRequest, payload: DeckIn):
    if payload.cards is None:
        # Generation from the vault comes with the shared study generator.
        raise HttpError(501, "Generating decks from the vault is not available yet; send `cards`.")
    try:
        deck = flashcards.create_deck(
            request.auth,
            payload.title or "Deck",
            [card.dict() for card in payload.cards],
            now=timezone.now(),
        )
    except flashcards.DeckError as error:
        raise HttpError(422, str(error)) from error
    flashcards.record_progress("record_deck_created", request.auth)
    return Status(201, deck_out(deck))


@router.get("/decks/due", response=list[CardOut])
def due_cards(request: HttpRequest):
    """Cards due now across all your decks, the most overdue first."""
    return Card.objects.visible_to(request.auth).due(timezone.now())


@router.get("/decks/{deck_id}", response=DeckOut)
def get_deck(request: HttpRequest, deck_id: int):
    return deck_out(own_deck(request, deck_id))


@router.patch("/decks/{deck_id}", response=DeckOut)
def rename_deck(request: HttpRequest, deck_id: int, payload: DeckPatch | None = None):
    deck = own_deck(request, deck_id)
    payload = payload or DeckPatch()
    if not payload.title or not payload.title.strip():
        raise HttpError(422, "Give the deck a title.")
    deck.title = payload.title.strip()
    deck.save(update_fields=["title", "updated_at"])
    return deck_out(deck)


@router.delete("/decks/{deck_id}", response={204: None})
def delete_deck(request: HttpRequest, deck_id: int):
    own_deck(request, deck_id).delete()
    return Status(204, None)


@router.post("/decks/{deck_id}/cards", response={201: CardOut})
def add_card(request: HttpRequest, deck_id: int, payload: CardPatch | None = None):
    deck = own_deck(request, deck_id)
    payload = payload or CardPatch()
    if not payload.front or not payload.back:
        raise HttpError(422, "A card needs a front and a back.")
    if deck.cards.count() >= Deck.MAX_CARDS:
        raise HttpError(422, f"A deck holds at most {Deck.MAX_CARDS} cards.")
    return Status(201, flashcards.add_card(deck, payload.front, payload.back, now=timezone.now()))


@router.patch("/decks/{deck_id}/cards/{card_id}", response=CardOut)
def edit_card(request: HttpRequest, deck_id: int, card_id: int, payload: CardPatch | None = None):
    card = own_card(request, deck_id, card_id)
    payload = payload or CardPatch()
    card.front = payload.front or card.front
    card.back = payload.back or card.back
    card.save(update_fields=["front", "back"])
    return card


@router.delete("/decks/{deck_id}/cards/{card_id}", response={204: None})
def delete_card(request: HttpRequest, deck_id: int, card_id: int):
    own_card(request, deck_id, card_id).delete()
    return Status(204, None)


@router.post("/decks/{deck_id}/cards/{card_id}/review", response=ReviewOut)
def review_card(request: HttpRequest, deck_id: int, card_id: int, payload: ReviewIn | None = None):
    card = own_card(request, deck_id, card_id)
    payload = payload or ReviewIn()
    if payload.outcome is None:
        raise HttpError(422, 'Send {"outcome": "got_it"} or {"outcome": "review"}.')
    with transaction.atomic():
        was_mastered = card.deck.is_mastered()
        flashcards.review(card, payload.outcome, now=timezone.now())
        mastered = card.deck.is_mastered()
    flashcards.record_progress(
        "record_card_flip", request.auth, mastered_deck=mastered and not was_mastered
    )
    return {"card": card, "deck_mastered": mastered}


@router.get("/decks/{deck_id}/export.{fmt}", response={200: None})
def export_deck(request: HttpRequest, deck_id: int, fmt: Literal["csv", "apkg"]):
    deck = own_deck(request, deck_id)
    if fmt == "csv":
        response = HttpResponse(flashcards.export_csv(deck), content_type="text/csv")
    else:
        response = HttpResponse(flashcards.export_apkg(deck), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="deck-{deck.pk}.{fmt}"'
    return response


class MindmapIn(Schema):
    """Generate from the vault (a scope), or bring the `tree` yourself."""

    title: str | None = Field(None, max_length=200)
    category_ids: list[int] = []
    document_ids: list[int] = []
    tree: dict | None = None


class MindmapPatch(Schema):
    title: str | None = Field(None, min_length=1, max_length=200)
    layout: Literal["lr", "tb", "radial"] | None = None


class NodeIn(Schema):
    node: str = Field("", max_length=40)


class PositionIn(NodeIn):
    layout: Literal["lr", "tb", "radial"] | None = None
    x: float = Field(0, ge=-drawing.POSITION_LIMIT, le=drawing.POSITION_LIMIT)
    y: float = Field(0, ge=-drawing.POSITION_LIMIT, le=drawing.POSITION_LIMIT)


class MindmapOut(Schema):
    id: int
    title: str
    layout: str
    tree: dict
    positions: dict
    collapsed: list[str]
    created_at: datetime
    svg_url: str

    @staticmethod
    def resolve_svg_url(mindmap: Mindmap) -> str:
        return f"/api/v1/study/mindmaps/{mindmap.pk}.svg"


def own_mindmap(request: HttpRequest, mindmap_id: int) -> Mindmap:
    return get_object_or_404(Mindmap.objects.visible_to(request.auth), pk=mindmap_id)


@router.get("/mindmaps", response=list[MindmapOut])
def list_mindmaps(request: HttpRequest):
    return Mindmap.objects.visible_to(request.auth)


@router.post("/mindmaps", response={201: MindmapOut})
def create_mindmap(request: HttpRequest, payload: MindmapIn):
    if payload.tree is None:
        raise HttpError(
            501, "Generating mindmaps from the vault is not available yet; send `tree`."
        )
    try:
        tree = drawing.clean_tree(payload.tree)
    except drawing.MindmapError as error:
        raise HttpError(422, str(error)) from error
    title = (payload.title or "").strip() or tree["title"]
    mindmap = Mindmap.objects.create(owner=request.auth, title=title[:200], tree=tree)
    flashcards.record_progress("record_mindmap_created", request.auth)
    return Status(201, mindmap)


@router.get("/mindmaps/{int:mindmap_id}", response=MindmapOut)
def get_mindmap(request: HttpRequest, mindmap_id: int):
    return own_mindmap(request, mindmap_id)


@router.get("/mindmaps/{int:mindmap_id}.svg", response={200: None})
def mindmap_svg(request: HttpRequest, mindmap_id: int):
    """The same SVG the page shows, in the saved layout and arrangement."""
    svg = drawing.render_svg(own_mindmap(request, mindmap_id))
    return HttpResponse(svg, content_type="image/svg+xml")


@router.patch("/mindmaps/{int:mindmap_id}", response=MindmapOut)
def update_mindmap(request: HttpRequest, mindmap_id: int, payload: MindmapPatch | None = None):
    mindmap = own_mindmap(request, mindmap_id)
    payload = payload or MindmapPatch()
    if payload.title:
        mindmap.title = payload.title
    if payload.layout:
        mindmap.layout = payload.layout
    mindmap.save(update_fields=["title", "layout", "updated_at"])
    return mindmap


@router.delete("/mindmaps/{int:mindmap_id}", response={204: None})
def delete_mindmap(request: HttpRequest, mindmap_id: int):
    own_mindmap(request, mindmap_id).delete()
    return Status(204, None)


@router.post("/mindmaps/{int:mindmap_id}/positions", response=MindmapOut)
def move_node(request: HttpRequest, mindmap_id: int, payload: PositionIn | None = None):
    mindmap = own_mindmap(request, mindmap_id)
    payload = payload or PositionIn()
    try:
        mindmap.move_node(payload.node, payload.layout or mindmap.layout, payload.x, payload.y)
    except KeyError as error:
        raise HttpError(422, f"No node {payload.node!r} in this mindmap.") from error
    return mindmap


@router.delete("/mindmaps/{int:mindmap_id}/positions", response=MindmapOut)
def reset_layout(request: HttpRequest, mindmap_id: int):
    mindmap = own_mindmap(request, mindmap_id)
    mindmap.reset_layout()
    return mindmap


@router.post("/mindmaps/{int:mindmap_id}/collapsed", response=MindmapOut)
def toggle_branch(request: HttpRequest, mindmap_id: int, payload: NodeIn | None = None):
    mindmap = own_mindmap(request, mindmap_id)
    payload = payload or NodeIn()
    try:
        mindmap.toggle(payload.node)
    except KeyError as error:
        raise HttpError(422, f"No node {payload.node!r} in this mindmap.") from error
    return mindmap


# --- end of flashcards and mindmaps ---------------------------------------------------------
