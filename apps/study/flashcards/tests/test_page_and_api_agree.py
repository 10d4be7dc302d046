"""The page and the API add cards, answer them and make decks through one rule each: a deck
holds at most 200 cards, an answer is "got it" or "review", and each is recorded once; and
they export a deck as the same files."""

import io
import zipfile

import pytest
from django.utils import timezone

from apps.progress.models import Event
from apps.study.flashcards.decks import create_deck
from apps.study.models import Card, CardReview, Deck

pytestmark = pytest.mark.django_db

FULL = "A deck holds at most 200 cards."


def make_deck(owner, cards: int) -> Deck:
    items = [{"front": f"Frage {i}", "back": f"Antwort {i}"} for i in range(cards)]
    deck, _badges = create_deck(owner, "Vokabeln", items, now=timezone.now())
    return deck


def test_the_page_and_the_api_export_the_same_csv_and_an_anki_package(alice, alice_client):
    deck = make_deck(alice, 2)

    page = alice_client.get(f"/study/decks/{deck.pk}/export.csv")
    api_csv = alice_client.get(f"/api/v1/study/decks/{deck.pk}/export.csv")
    api_apkg = alice_client.get(f"/api/v1/study/decks/{deck.pk}/export.apkg")

    assert api_csv["Content-Type"] == "text/csv" and api_csv.content == page.content
    assert api_csv["Content-Disposition"] == f'attachment; filename="deck-{deck.pk}.csv"'
    assert api_apkg["Content-Type"] == "application/zip"
    assert api_apkg["Content-Disposition"] == f'attachment; filename="deck-{deck.pk}.apkg"'
    assert zipfile.is_zipfile(io.BytesIO(api_apkg.content))


def test_a_full_deck_takes_no_card_from_page_or_api(alice, alice_client):
    deck = make_deck(alice, Deck.MAX_CARDS)

    page = alice_client.post(f"/study/decks/{deck.pk}/cards/", {"front": "Hund", "back": "dog"})
    partial = alice_client.post(
        f"/study/decks/{deck.pk}/cards/", {"front": "Hund", "back": "dog"}, HTTP_HX_REQUEST="true"
    )
    api = alice_client.post(
        f"/api/v1/study/decks/{deck.pk}/cards",
        {"front": "Hund", "back": "dog"},
        content_type="application/json",
    )

    assert page.status_code == 400 and FULL in page.content.decode()
    assert partial.status_code == 400 and FULL in partial.content.decode()
    assert api.status_code == 422 and api.json() == {"detail": FULL}
    assert deck.cards.count() == Deck.MAX_CARDS


def test_a_deck_with_room_takes_the_card_from_page_and_api(alice, alice_client):
    deck = make_deck(alice, Deck.MAX_CARDS - 2)

    page = alice_client.post(f"/study/decks/{deck.pk}/cards/", {"front": "Hund", "back": "dog"})
    api = alice_client.post(
        f"/api/v1/study/decks/{deck.pk}/cards",
        {"front": "Katze", "back": "cat"},
        content_type="application/json",
    )

    assert page.status_code == 302 and api.status_code == 201
    assert list(deck.cards.order_by("-position").values_list("front", flat=True)[:2]) == [
        "Katze",
        "Hund",
    ]


def test_more_cards_than_a_deck_holds_make_no_deck_from_a_csv_or_the_api(alice_client):
    rows = "".join(f"Frage {i},Antwort {i}\n" for i in range(Deck.MAX_CARDS + 1))
    upload = io.BytesIO(rows.encode())
    upload.name = "gross.csv"
    cards = [{"front": f"Frage {i}", "back": "x"} for i in range(Deck.MAX_CARDS + 1)]

    page = alice_client.post("/study/decks/import/", {"file": upload})
    api = alice_client.post(
        "/api/v1/study/decks", {"title": "Gross", "cards": cards}, content_type="application/json"
    )

    message = "A deck holds at most 200 cards; this has 201."
    assert page.status_code == 400 and message in page.content.decode()
    assert api.status_code == 422 and api.json() == {"detail": message}
    assert not Deck.objects.exists()


def test_an_unknown_answer_is_refused_by_page_and_api_and_changes_nothing(alice, alice_client):
    deck = make_deck(alice, 1)
    card = deck.cards.get()

    page = alice_client.post(
        f"/study/decks/{deck.pk}/cards/{card.pk}/review/", {"outcome": "maybe"}
    )
    api = alice_client.post(
        f"/api/v1/study/decks/{deck.pk}/cards/{card.pk}/review",
        {"outcome": "maybe"},
        content_type="application/json",
    )

    message = 'An answer is "got_it" or "review".'
    assert page.status_code == 400 and "An answer is &quot;got_it&quot;" in page.content.decode()
    assert api.status_code == 422 and api.json() == {"detail": message}
    assert not CardReview.objects.exists()
    assert Card.objects.get().due_at == card.due_at
    assert not Event.objects.filter(kind=Event.Kind.CARD_FLIP).exists()


def test_answers_and_new_decks_are_recorded_once_from_page_and_api(alice, alice_client):
    alice_client.post("/study/decks/new/", {"title": "Seite", "front": "Hund", "back": "dog"})
    alice_client.post(
        "/api/v1/study/decks",
        {"title": "API", "cards": [{"front": "Katze", "back": "cat"}]},
        content_type="application/json",
    )
    by_page, by_api = Card.objects.order_by("pk")

    alice_client.post(
        f"/study/decks/{by_page.deck_id}/cards/{by_page.pk}/review/", {"outcome": "got_it"}
    )
    reviewed = alice_client.post(
        f"/api/v1/study/decks/{by_api.deck_id}/cards/{by_api.pk}/review",
        {"outcome": "got_it"},
        content_type="application/json",
    )

    assert reviewed.json()["deck_mastered"] is True
    assert Event.objects.filter(kind=Event.Kind.DECK).count() == 2
    flips = Event.objects.filter(kind=Event.Kind.CARD_FLIP)
    assert [flip.mastered_deck for flip in flips.order_by("pk")] == [True, True]
