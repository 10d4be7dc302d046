"""The deck, as a kind of study material a worker makes (apps/study/kinds.py)."""

from django.utils import timezone

from apps.study import generator, kinds
from apps.study.flashcards.generation import fill_generated_deck
from apps.study.flashcards.models import Deck
from apps.study.flashcards.stale import cited, refresh_deck


def fill(deck: Deck) -> None:
    fill_generated_deck(deck, now=timezone.now())


def shortfall(deck: Deck) -> kinds.Shortfall:
    return kinds.Shortfall(
        deck.cards.count(),
        deck.asked.get("count", 0),
        "cards",
        filled=deck.cards.filter(extractive=True).count(),
        model=not deck.model_label.startswith(generator.EXTRACTIVE),
    )


DECK = kinds.register(
    kinds.Kind(
        "deck",
        Deck,
        fill=fill,
        making=lambda deck: f"Making a deck of {deck.asked.get('count', '')} cards",
        detail_url="study:deck-detail",
        refresh=refresh_deck,
        shortfall=shortfall,
        parts="cards",
        cited=cited,
        handed_out=True,
    )
)
