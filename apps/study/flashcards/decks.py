"""Decks made from cards: by hand, from a CSV file, through the API or by the generator."""

from datetime import datetime

from django.db import transaction

from apps.study.flashcards.models import Card, Deck


class DeckError(ValueError):
    """Input we cannot turn into a deck; the message is shown to the person."""


def clean_side(value: object) -> str:
    return value.strip()[: Card.MAX_SIDE] if isinstance(value, str) else ""


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
                }
            )
    return cards[: Deck.MAX_CARDS]


@transaction.atomic
def create_deck(owner, title: str, items: list, *, now: datetime, **fields) -> Deck:
    cards = clean_cards(items)
    if not cards:
        raise DeckError("A deck needs at least one card with a front and a back.")
    deck = Deck.objects.create(owner=owner, title=title.strip()[:200] or "Deck", **fields)
    Card.objects.bulk_create(
        Card(deck=deck, position=i, due_at=now, **card) for i, card in enumerate(cards)
    )
    return deck


def add_card(deck: Deck, front: str, back: str, *, now: datetime) -> Card:
    last = deck.cards.order_by("-position").values_list("position", flat=True).first()
    return Card.objects.create(
        deck=deck,
        position=(last + 1) if last is not None else 0,
        front=front,
        back=back,
        due_at=now,
    )
