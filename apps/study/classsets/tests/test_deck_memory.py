"""A class deck's mastery is memory over time: the cards FSRS gives a 90 % chance of recall
today, reviewed on two different days at least; a burst of "got it" in one sitting is one day.
The teacher sees each student's reviews per day."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from apps.study.classsets.tests.factories import make_deck
from apps.study.models import ClassSet
from tests.helpers.classes import class_of

pytestmark = pytest.mark.django_db
JSON = "application/json"
DAY_ONE = datetime(2026, 4, 15, 9, 0, tzinfo=UTC)


@pytest.fixture
def deck(tess):
    deck = make_deck(tess)
    ClassSet.objects.hand_out(tess, deck, class_of(tess))
    return deck


def rate_all(client, deck, at: datetime, times: int = 1) -> None:
    with time_machine.travel(at, tick=False):
        for _ in range(times):
            for card in deck.cards.all():
                url = f"/api/v1/study/decks/{deck.pk}/cards/{card.pk}/review"
                reply = client.post(url, {"outcome": "got_it"}, content_type=JSON)
                assert reply.status_code == 200, reply.content


def alices_row(client, deck, at: datetime) -> dict:
    class_set = ClassSet.objects.for_item(deck).get()
    with time_machine.travel(at, tick=False):
        report = client.get(f"/api/v1/study/class-sets/{class_set.pk}/results").json()
    [row] = [r for r in report["students"] if r["username"] == "alice"]
    return row


def test_got_it_on_every_card_in_one_sitting_is_not_mastery(tess_client, alice_client, deck):
    rate_all(alice_client, deck, DAY_ONE, times=5)

    row = alices_row(tess_client, deck, DAY_ONE + timedelta(minutes=1))

    assert (row["score"], row["detail"], row["finished"]) == (0, "0 of 2 remembered", False)
    assert row["review_days"] == [{"day": "2026-04-15", "reviews": 10}]


def test_cards_reviewed_on_two_days_and_still_remembered_count(tess_client, alice_client, deck):
    rate_all(alice_client, deck, DAY_ONE)
    rate_all(alice_client, deck, DAY_ONE + timedelta(days=1))

    next_day = alices_row(tess_client, deck, DAY_ONE + timedelta(days=1, minutes=5))
    much_later = alices_row(tess_client, deck, DAY_ONE + timedelta(days=120))

    assert (next_day["score"], next_day["detail"], next_day["finished"]) == (
        100,
        "2 of 2 remembered",
        True,
    )
    assert much_later["score"] == 0  # forgotten by FSRS's reckoning
    assert next_day["review_days"] == [
        {"day": "2026-04-15", "reviews": 2},
        {"day": "2026-04-16", "reviews": 2},
    ]


def test_the_results_page_shows_reviews_per_student_per_day(tess_client, alice_client, deck):
    rate_all(alice_client, deck, DAY_ONE, times=2)
    rate_all(alice_client, deck, DAY_ONE + timedelta(days=2))
    class_set = ClassSet.objects.for_item(deck).get()

    with time_machine.travel(DAY_ONE + timedelta(days=2, minutes=1), tick=False):
        page = tess_client.get(f"/study/class-sets/{class_set.pk}/").content.decode()

    assert 'data-review-days="alice"' in page
    assert "15 Apr (4) · 17 Apr (2)" in page
