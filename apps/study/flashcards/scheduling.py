"""Spaced repetition with FSRS: each answer moves a card to its next state and due time.

Two buttons map onto FSRS ratings: "got it" is Good, "review" is Again (see the README).
"""

from datetime import UTC, datetime

import fsrs
from django.db import transaction
from django.db.models import F

from apps.progress import tracking
from apps.study.errors import DeckError
from apps.study.flashcards.models import Card, CardReview

# Fuzzing spreads due dates randomly; our decks are small and a schedule you can predict
# (and test) is worth more here than load balancing across days.
SCHEDULER = fsrs.Scheduler(enable_fuzzing=False)
RATINGS = {
    CardReview.Outcome.GOT_IT: fsrs.Rating.Good,
    CardReview.Outcome.REVIEW: fsrs.Rating.Again,
}


def to_fsrs(card: Card) -> fsrs.Card:
    return fsrs.Card(
        card_id=card.pk,
        state=fsrs.State(card.state),
        step=card.step,
        stability=card.stability,
        difficulty=card.difficulty,
        due=card.due_at.astimezone(UTC),
        last_review=card.last_review_at.astimezone(UTC) if card.last_review_at else None,
    )


def review(card: Card, outcome: str | None, *, now: datetime) -> list:
    """Apply one answer: FSRS moves the card to its next state and due time, the answer is
    logged and recorded for progress (saying whether it mastered the deck); the badges just
    earned. An outcome other than "got_it" or "review" changes nothing."""
    if outcome not in CardReview.Outcome.values:
        raise DeckError('An answer is "got_it" or "review".')
    outcome = CardReview.Outcome(outcome)
    with transaction.atomic():
        was_mastered = card.deck.is_mastered()
        scheduled, _ = SCHEDULER.review_card(to_fsrs(card), RATINGS[outcome], now.astimezone(UTC))
        card.state = int(scheduled.state)
        card.step = scheduled.step
        card.stability = scheduled.stability
        card.difficulty = scheduled.difficulty
        card.due_at = scheduled.due
        card.last_review_at = scheduled.last_review
        card.mastered = outcome == CardReview.Outcome.GOT_IT
        card.save()
        CardReview.objects.create(
            card=card,
            outcome=outcome,
            reviewed_at=now,
            state_after=card.state,
            due_after=card.due_at,
        )
        mastered_deck = not was_mastered and card.deck.is_mastered()
    return tracking.record_card_flip(card.deck.owner, mastered_deck=mastered_deck)


def record_flip(card: Card) -> None:
    Card.objects.filter(pk=card.pk).update(flips=F("flips") + 1)


def next_card(cards, *, now: datetime, after: Card | None = None) -> Card | None:
    """The card to show: the most overdue one first, else the deck in order after `after`."""
    due = cards.due(now)
    if after is not None:
        due = due.exclude(pk=after.pk)
    card = due.first()
    if card is None and after is not None:
        card = cards.filter(position__gt=after.position).order_by("position", "id").first()
    return card
