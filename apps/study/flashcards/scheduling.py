"""Spaced repetition with FSRS: each answer moves a card to its next state and due time.

Two buttons map onto FSRS ratings: "got it" is Good, "review" is Again (see docs/study-hub.md).
"""

from datetime import UTC, datetime

import fsrs
from django.db import transaction
from django.db.models import F

from apps.progress import tracking
from apps.study.errors import DeckError
from apps.study.flashcards.models import Card, CardReview, CardSchedule, Memory

# Fuzzing spreads due dates randomly; our decks are small and a schedule you can predict
# (and test) is worth more here than load balancing across days.
SCHEDULER = fsrs.Scheduler(enable_fuzzing=False)
RATINGS = {
    CardReview.Outcome.GOT_IT: fsrs.Rating.Good,
    CardReview.Outcome.REVIEW: fsrs.Rating.Again,
}


def to_fsrs(memory: Memory, card_id: int) -> fsrs.Card:
    return fsrs.Card(
        card_id=card_id,
        state=fsrs.State(memory.state),
        step=memory.step,
        stability=memory.stability,
        difficulty=memory.difficulty,
        due=memory.due_at.astimezone(UTC),
        last_review=memory.last_review_at.astimezone(UTC) if memory.last_review_at else None,
    )


def retrievability(memory: Memory, card_id: int, now: datetime) -> float:
    """FSRS's chance that the card is recalled at `now` (0 for a card never answered)."""
    if memory.stability is None or memory.last_review_at is None:
        return 0.0
    return SCHEDULER.get_card_retrievability(to_fsrs(memory, card_id), now.astimezone(UTC))


def memory_of(card: Card, user) -> Memory:
    """`user`'s memory of the card: the card's own for its deck's owner, else the student's
    schedule (a fresh one, not saved yet, when they never answered it: due at once)."""
    if user.pk == card.deck.owner_id:
        return card
    schedule = CardSchedule.objects.filter(card=card, student=user).first()
    return schedule or CardSchedule(card=card, student=user, due_at=card.created_at)


def review(card: Card, outcome: str | None, *, now: datetime, by=None) -> list:
    """Apply one answer of `by` (the deck's owner unless said): FSRS moves their memory of
    the card to its next state and due time, the answer is logged and recorded for their
    progress (saying whether it mastered the deck for them); the badges just earned. An
    outcome other than "got_it" or "review" changes nothing."""
    if outcome not in CardReview.Outcome.values:
        raise DeckError('An answer is "got_it" or "review".')
    outcome = CardReview.Outcome(outcome)
    by = by or card.deck.owner
    with transaction.atomic():
        was_mastered = card.deck.is_mastered(by)
        memory = memory_of(card, by)
        rating = RATINGS[outcome]
        scheduled, _ = SCHEDULER.review_card(to_fsrs(memory, card.pk), rating, now.astimezone(UTC))
        memory.state = int(scheduled.state)
        memory.step = scheduled.step
        memory.stability = scheduled.stability
        memory.difficulty = scheduled.difficulty
        memory.due_at = scheduled.due
        memory.last_review_at = scheduled.last_review
        memory.mastered = outcome == CardReview.Outcome.GOT_IT
        memory.save()
        CardReview.objects.create(
            card=card,
            student=None if memory is card else by,
            outcome=outcome,
            reviewed_at=now,
            state_after=memory.state,
            due_after=memory.due_at,
        )
        mastered_deck = not was_mastered and card.deck.is_mastered(by)
    return tracking.record_card_flip(by, mastered_deck=mastered_deck)


def record_flip(card: Card, by=None) -> None:
    by = by or card.deck.owner
    if by.pk == card.deck.owner_id:
        Card.objects.filter(pk=card.pk).update(flips=F("flips") + 1)
        return
    schedule, _ = CardSchedule.objects.get_or_create(
        card=card, student=by, defaults={"due_at": card.created_at}
    )
    CardSchedule.objects.filter(pk=schedule.pk).update(flips=F("flips") + 1)


def next_card(cards, *, now: datetime, after: Card | None = None) -> Card | None:
    """The card to show: the most overdue one first, else the deck in order after `after`.
    `cards` are annotated with their learner's memory (CardQuerySet.studied_by)."""
    due = cards.due_to_learner(now)
    if after is not None:
        due = due.exclude(pk=after.pk)
    card = due.first()
    if card is None and after is not None:
        card = cards.filter(position__gt=after.position).order_by("position", "id").first()
    return card
