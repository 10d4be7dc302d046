"""Decks made from cards: by hand, from a CSV file, through the API or by the generator."""

from datetime import datetime

from django.db import transaction

from apps.progress import tracking
from apps.study.errors import DeckError, DeckFull
from apps.study.flashcards.models import Card, Deck, clean_side
from apps.study.quota import make_room, size_of


def clean_cards(items: list) -> list[dict]:
    """Keep the items with a non-empty front and back; drop the rest."""
    cards = []
    for item in items:
        if not isinstance(item, dict):
            continue
        front, back = clean_side(item.get("front")), clean_side(item.get("back"))
        if front and back:
            chunk_id = item.get("chunk_id")
            cards.append(
                {
                    "front": front,
                    "back": back,
                    "chunk_id": chunk_id if isinstance(chunk_id, int) else None,
                    # Only the generator marks a card it cut from its chunk.
                    **({"extractive": True} if item.get("extractive") is True else {}),
                    **({"pictures": item["pictures"]} if pictures_of(item) else {}),
                }
            )
    return cards


def pictures_of(item: dict) -> bool:
    """Whether `item` brings pictures as an imported deck's reader gives them: {"front": [data
    URIs], "back": [...]}."""
    pictures = item.get("pictures")
    return isinstance(pictures, dict) and all(
        side in ("front", "back")
        and isinstance(uris, list)
        and all(isinstance(uri, str) and uri.startswith("data:image/") for uri in uris)
        for side, uris in pictures.items()
    )


def checked_cards(items: list) -> list[dict]:
    """The cards a deck can be made of: at least one, no more than a deck holds."""
    cards = clean_cards(items)
    if not cards:
        raise DeckError("A deck needs at least one card with a front and a back.")
    if len(cards) > Deck.MAX_CARDS:
        raise DeckFull(f"A deck holds at most {Deck.MAX_CARDS} cards; this has {len(cards)}.")
    return cards


def cards_size(cards: list[dict]) -> int:
    return sum(size_of(card["front"], card["back"], card.get("pictures") or {}) for card in cards)


def add_cards(deck: Deck, cards: list[dict], *, now: datetime) -> None:
    Card.objects.bulk_create(
        Card(deck=deck, position=i, due_at=now, source_chunk_id=card["chunk_id"], **card)
        for i, card in enumerate(cards)
    )


def create_deck(owner, title: str, items: list, *, now: datetime, **fields) -> tuple[Deck, list]:
    """A deck of the items with a front and a back, recorded for progress; (the deck, badges
    just earned). Nothing is made from no cards or from more than a deck holds."""
    cards = checked_cards(items)
    title = title.strip()[:200] or "Deck"
    with transaction.atomic():
        make_room(owner, cards_size(cards), title)
        deck = Deck.objects.create(owner=owner, title=title, **fields)
        add_cards(deck, cards, now=now)
    return deck, tracking.record_deck_created(owner)


def fill_deck(deck: Deck, items: list, *, now: datetime, model_label: str) -> list:
    """Store the generated cards of a deck a worker makes, ready, and record it for
    progress; the badges just earned."""
    cards = checked_cards(items)
    with transaction.atomic():
        add_cards(deck, cards, now=now)
        deck.mark_ready(model_label=model_label)
    return tracking.record_deck_created(deck.owner)
