"""What a student remembers of a class deck, by FSRS rather than by the buttons pressed.

A card counts as remembered when its FSRS retrievability now is at least RETAINED and the
student reviewed it on at least two different days: "got it" on every card in one sitting is
one day, however many ratings it holds. Days are the teacher's (a student sets their own zone,
which must not split a sitting in two).
"""

from collections import Counter
from dataclasses import dataclass
from datetime import date, datetime

from django.utils import timezone

from apps.accounts.models import User
from apps.progress.models import LocalZone
from apps.study.flashcards.models import CardReview, CardSchedule, Deck
from apps.study.flashcards.scheduling import retrievability

RETAINED = 0.9
MIN_DAYS = 2


@dataclass
class DeckMemory:
    remembered: int
    total: int
    days: list[tuple[date, int]]  # (day, reviews that day), oldest first


def deck_memory(deck: Deck, student: User, now: datetime) -> DeckMemory:
    zone = LocalZone.objects.zone_for(deck.owner)
    reviews = CardReview.objects.filter(card__deck=deck, student=student)
    days_of: dict[int, set[date]] = {}
    per_day: Counter[date] = Counter()
    for card_id, reviewed_at in reviews.values_list("card_id", "reviewed_at"):
        day = timezone.localdate(reviewed_at, zone)
        days_of.setdefault(card_id, set()).add(day)
        per_day[day] += 1
    remembered = sum(
        1
        for schedule in CardSchedule.objects.filter(card__deck=deck, student=student)
        if len(days_of.get(schedule.card_id, ())) >= MIN_DAYS
        and retrievability(schedule, schedule.card_id, now) >= RETAINED
    )
    return DeckMemory(remembered, deck.cards.count(), sorted(per_day.items()))
