"""The deck, as a kind of study material a worker makes and a teacher hands out to the class
(apps/study/kinds.py). A student's mastery is what FSRS says they remember, reviewed on two days
at least (deck_memory.py), not the last button pressed; the cards the class misses most are
those answered "review" most."""

from django.db.models import Count, Max
from django.utils import timezone

from apps.study import generator, kinds
from apps.study.flashcards.deck_memory import deck_memory
from apps.study.flashcards.generation import fill_generated_deck
from apps.study.flashcards.models import CardReview, Deck
from apps.study.flashcards.stale import cited, refresh_deck
from apps.study.sources import first_source


def shortfall(deck: Deck) -> kinds.Shortfall:
    return kinds.Shortfall(
        deck.cards.count(),
        deck.asked.get("count", 0),
        "cards",
        filled=deck.cards.filter(extractive=True).count(),
        model=not deck.model_label.startswith(generator.EXTRACTIVE),
    )


def figures(class_set, student) -> kinds.Figures:
    deck = class_set.item
    figures = kinds.Figures(student)
    memory = deck_memory(deck, student, timezone.now())
    reviews = CardReview.objects.filter(card__deck=deck, student=student)
    figures.last_activity = reviews.aggregate(last=Max("reviewed_at"))["last"]
    figures.started = figures.last_activity is not None
    figures.finished = memory.total > 0 and memory.remembered == memory.total
    if memory.total and figures.started:
        figures.score = round(100 * memory.remembered / memory.total)
        figures.detail = f"{memory.remembered} of {memory.total} remembered"
    figures.review_days = memory.days
    return figures


def missed_cards(class_set, students: list) -> list[kinds.Missed]:
    deck = class_set.item
    cards = {card.pk: card for card in deck.cards.all()}
    rows = (
        CardReview.objects.filter(
            card__deck=deck, student__in=students, outcome=CardReview.Outcome.REVIEW
        )
        .values("card_id")
        .annotate(misses=Count("id"), students=Count("student", distinct=True))
        .order_by("-students", "-misses", "card__position")[: kinds.MOST_MISSED]
    )
    return [
        kinds.Missed(
            item_id=row["card_id"],
            position=cards[row["card_id"]].position,
            text=cards[row["card_id"]].front,
            misses=row["misses"],
            students=row["students"],
            passage=first_source(class_set.teacher, [cards[row["card_id"]].chunk_id]),
        )
        for row in rows
    ]


DECK = kinds.register(
    kinds.Kind(
        "deck",
        Deck,
        fill=lambda deck: fill_generated_deck(deck, now=timezone.now()),
        making=lambda deck: f"Making a deck of {deck.asked.get('count', '')} cards",
        detail_url="study:deck-detail",
        urls=("decks/", "apps.study.flashcards.urls"),
        router="apps.study.flashcards.api.router",
        tab=kinds.Tab("Flashcards", "study:deck-list", 3),
        refresh=refresh_deck,
        shortfall=shortfall,
        parts="cards",
        part="card",
        cited=cited,
        handed_out=kinds.HandOut(
            "Mastery",
            figures,
            missed=missed_cards,
            template="study/flashcards/class_results.html",
        ),
    )
)
