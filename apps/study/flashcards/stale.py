"""A deck's cards whose source changed, and refreshing only those (apps/study/stale.py)."""

from apps.study.extractive import cards as extractive_cards
from apps.study.extractive import material
from apps.study.flashcards.models import Card, Deck
from apps.study.stale import candidates, live, says, scope_for


def stale_cards(deck: Deck) -> list[Card]:
    cards = [card for card in deck.cards.all() if card.source_chunk_id]
    alive = live(card.source_chunk_id for card in cards)
    return [card for card in cards if card.source_chunk_id not in alive]


def card_text(card: Card) -> str:
    return f"{card.front} {card.back}"


def refresh_deck(deck: Deck) -> int:
    """Point or cut again each card whose source changed; its reviews and schedule stay."""
    scope = scope_for(deck)
    refreshed = 0
    fronts = {card.front.casefold() for card in deck.cards.all()}
    for card in stale_cards(deck):
        for passage in candidates(deck.owner, card_text(card), scope):
            if not says(passage.text, card.back):
                vocabulary = material.vocabulary(deck.owner, scope, [passage])
                made = next(
                    (
                        c
                        for c in extractive_cards.cards([passage], vocabulary, count=10)
                        if c["front"].casefold() not in fronts
                    ),
                    None,
                )
                if made is None:
                    continue
                fronts.add(made["front"].casefold())
                card.front, card.back, card.extractive = made["front"], made["back"], True
            card.chunk_id = card.source_chunk_id = passage.chunk_id
            card.save(update_fields=["front", "back", "extractive", "chunk", "source_chunk_id"])
            refreshed += 1
            break
    return refreshed


def cited(user) -> list[list[int]]:
    """The chunk each of the user's cards cites, for the stale counts."""
    cards = Card.objects.filter(deck__owner=user, source_chunk_id__isnull=False)
    return [[pk] for pk in cards.values_list("source_chunk_id", flat=True)]
