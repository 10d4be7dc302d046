"""Decks from the vault: the shared generator recipe, each card keeping its passage."""

from datetime import datetime

from pydantic import BaseModel, field_validator

from apps.study import generator
from apps.study.errors import InvalidInput
from apps.study.flashcards.decks import create_deck
from apps.study.flashcards.models import Card, Deck
from apps.study.quizzes.generation import scope_title


class CardItem(BaseModel):
    """One card as the model must return it; anything else is dropped."""

    front: str
    back: str

    @field_validator("front", "back")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("empty")
        return value[: Card.MAX_SIDE]


def same_card(item: CardItem) -> str:
    return " ".join(item.front.casefold().split())


def generate_deck(
    user, *, num_cards: int, scope: generator.Scope, now: datetime, title: str = ""
) -> tuple[Deck, list]:
    """Generate, store and record a deck; (the deck, badges just earned). Raises a StudyError
    with a readable message."""
    if num_cards not in Deck.SIZES:
        raise InvalidInput(f"A deck has {', '.join(map(str, Deck.SIZES))} cards.")
    result = generator.generate_items(
        user,
        template="flashcards",
        schema=CardItem,
        count=num_cards,
        key="cards",
        scope=scope,
        identity=same_card,
    )
    items = [
        {
            "front": item.value.front,
            "back": item.value.back,
            "chunk_id": item.chunk_ids[0] if len(item.chunk_ids) == 1 else None,
        }
        for item in result.items
    ]
    return create_deck(
        user,
        title or f"Cards on {scope_title(user, scope)}",
        items,
        now=now,
        category_ids=list(scope.category_ids),
        document_ids=list(scope.document_ids),
        model_label=f"{result.backend} · {result.model}".strip(" ·"),
    )
