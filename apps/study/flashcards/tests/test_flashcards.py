import io
import sqlite3
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from apps.study.flashcards import anki, scheduling
from apps.study.flashcards import decks as deck_making
from apps.study.models import Card, CardReview, Deck
from tests.helpers.isolation import assert_only_owner_can_reach

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def make_deck(owner, n: int = 3, *, now=NOW, title: str = "Zellbiologie") -> Deck:
    items = [{"front": f"Frage {i}", "back": f"Antwort {i}"} for i in range(n)]
    deck, _badges = deck_making.create_deck(owner, title, items, now=now)
    return deck


# --- Scheduling -------------------------------------------------------------------------------


def test_a_new_card_is_due_at_once_and_learning(alice):
    card = make_deck(alice, 1).cards.get()
    assert card.state == Card.State.LEARNING
    assert card.due_at == NOW
    assert list(Card.objects.due(NOW)) == [card]


def test_got_it_twice_graduates_a_card_to_review_days_later(alice):
    card = make_deck(alice, 1).cards.get()
    scheduling.review(card, "got_it", now=NOW)
    assert card.state == Card.State.LEARNING
    assert card.due_at == NOW + timedelta(minutes=10)
    assert card.mastered

    later = NOW + timedelta(minutes=10)
    scheduling.review(card, "got_it", now=later)
    card.refresh_from_db()
    assert card.state == Card.State.REVIEW
    assert card.due_at - later >= timedelta(days=1)
    assert card.stability > 0 and 1 <= card.difficulty <= 10
    assert list(Card.objects.due(later + timedelta(hours=1))) == []


def test_review_on_a_graduated_card_sends_it_to_relearning_soon(alice):
    card = make_deck(alice, 1).cards.get()
    scheduling.review(card, "got_it", now=NOW)
    scheduling.review(card, "got_it", now=NOW + timedelta(minutes=10))
    review_day = card.due_at
    stability_before = card.stability

    scheduling.review(card, "review", now=review_day)
    card.refresh_from_db()
    assert card.state == Card.State.RELEARNING
    assert card.due_at == review_day + timedelta(minutes=10)
    assert card.stability < stability_before
    assert not card.mastered


def test_a_card_answered_review_while_learning_comes_back_in_a_minute(alice):
    card = make_deck(alice, 1).cards.get()
    scheduling.review(card, "review", now=NOW)
    assert card.state == Card.State.LEARNING
    assert card.due_at == NOW + timedelta(minutes=1)


def test_intervals_grow_while_you_keep_remembering(alice):
    card = make_deck(alice, 1).cards.get()
    now = NOW
    scheduling.review(card, "got_it", now=now)
    now = card.due_at
    intervals = []
    for _ in range(4):
        scheduling.review(card, "got_it", now=now)
        intervals.append(card.due_at - now)
        now = card.due_at
    assert intervals == sorted(intervals)
    assert intervals[-1] > intervals[0]


def test_every_answer_is_logged_and_the_schedule_survives_a_reload(alice):
    card = make_deck(alice, 1).cards.get()
    scheduling.review(card, "got_it", now=NOW)
    scheduling.review(card, "review", now=NOW + timedelta(minutes=10))
    stored = Card.objects.get(pk=card.pk)
    assert (stored.state, stored.step, stored.due_at) == (card.state, card.step, card.due_at)
    assert [r.outcome for r in CardReview.objects.filter(card=card)] == ["got_it", "review"]


def test_the_due_queue_lists_the_most_overdue_card_first_across_decks(alice, bob):
    older = make_deck(alice, 1, now=NOW - timedelta(days=2), title="A").cards.get()
    newer = make_deck(alice, 1, now=NOW - timedelta(days=1), title="B").cards.get()
    make_deck(alice, 1, now=NOW + timedelta(days=1), title="later")
    make_deck(bob, 1, now=NOW - timedelta(days=5), title="bob's")
    assert list(Card.objects.visible_to(alice).due(NOW)) == [older, newer]


def test_deck_mastery_counts_cards_whose_last_answer_was_got_it(alice):
    deck = make_deck(alice, 2)
    first, second = deck.cards.all()
    scheduling.review(first, "got_it", now=NOW)
    assert deck.mastery() == (1, 2) and not deck.is_mastered()
    scheduling.review(second, "got_it", now=NOW)
    assert deck.is_mastered()


# --- CSV and Anki ---------------------------------------------------------------------------


def test_the_anki_package_opens_as_a_collection_with_every_card(alice):
    deck, _badges = deck_making.create_deck(
        alice,
        "Anki <Deck>",
        [{"front": "a < b & c", "back": "Zeile 1\nZeile 2"}, {"front": "Two", "back": "2"}],
        now=NOW,
    )
    package = anki.export_apkg(deck)
    with zipfile.ZipFile(io.BytesIO(package)) as archive:
        assert "collection.anki2" in archive.namelist()
        collection = archive.read("collection.anki2")
    path = Path(pytest.importorskip("tempfile").mkdtemp()) / "c.anki2"
    path.write_bytes(collection)
    db = sqlite3.connect(path)
    fields = sorted(row[0] for row in db.execute("select flds from notes"))
    assert fields == ["Two\x1f2", "a &lt; b &amp; c\x1fZeile 1<br>Zeile 2"]
    assert db.execute("select count(*) from cards").fetchone()[0] == 2
    decks = db.execute("select decks from col").fetchone()[0]
    assert "Anki <Deck>" in decks
    db.close()


def test_re_exporting_a_deck_keeps_note_ids_so_anki_updates_instead_of_duplicating(alice):
    deck = make_deck(alice, 2)

    def guids(package: bytes) -> list[str]:
        with zipfile.ZipFile(io.BytesIO(package)) as archive:
            data = archive.read("collection.anki2")
        path = Path(pytest.importorskip("tempfile").mkdtemp()) / "c.anki2"
        path.write_bytes(data)
        with sqlite3.connect(path) as db:
            return sorted(row[0] for row in db.execute("select guid from notes"))

    assert guids(anki.export_apkg(deck)) == guids(anki.export_apkg(deck))


# --- Pages ----------------------------------------------------------------------------------


def test_alice_makes_a_deck_by_hand_edits_adds_and_deletes_cards(alice_client, alice):
    response = alice_client.post(
        "/study/decks/new/", {"title": "Vokabeln", "front": "Hund", "back": "dog"}
    )
    deck = Deck.objects.get(owner=alice)
    assert response.status_code == 302 and response.url == f"/study/decks/{deck.pk}/"
    card = deck.cards.get()

    page = alice_client.post(
        f"/study/decks/{deck.pk}/cards/{card.pk}/",
        {"front": "der Hund", "back": "the dog"},
        HTTP_HX_REQUEST="true",
    )
    assert page.status_code == 200
    assert b'id="card-list"' in page.content and b"<html" not in page.content
    card.refresh_from_db()
    assert (card.front, card.back) == ("der Hund", "the dog")

    alice_client.post(f"/study/decks/{deck.pk}/cards/", {"front": "Katze", "back": "cat"})
    assert list(deck.cards.values_list("front", flat=True)) == ["der Hund", "Katze"]

    empty = alice_client.post(
        f"/study/decks/{deck.pk}/cards/", {"front": " ", "back": "x"}, HTTP_HX_REQUEST="true"
    )
    assert empty.status_code == 400
    assert "The front of a card cannot be empty." in empty.content.decode()

    alice_client.post(f"/study/decks/{deck.pk}/cards/{card.pk}/delete/")
    assert list(deck.cards.values_list("front", flat=True)) == ["Katze"]


def test_alice_renames_and_deletes_a_deck(alice_client, alice):
    deck = make_deck(alice)
    renamed = alice_client.post(
        f"/study/decks/{deck.pk}/rename/", {"title": "Genetik"}, HTTP_HX_REQUEST="true"
    )
    assert renamed.status_code == 200 and b'id="deck-head"' in renamed.content
    deck.refresh_from_db()
    assert deck.title == "Genetik"
    assert alice_client.post(f"/study/decks/{deck.pk}/rename/", {"title": ""}).status_code == 400
    deleted = alice_client.post(f"/study/decks/{deck.pk}/delete/", follow=True)
    assert deleted.redirect_chain == [("/study/decks/", 302)]
    assert "Deleted the deck “Genetik”." in deleted.content.decode()
    assert not Deck.objects.exists() and not Card.objects.exists()


def test_importing_a_csv_file_makes_a_deck_named_after_it(alice_client, alice):
    upload = io.BytesIO(b"front,back\nMitose,Kernteilung\nMeiose,Reifeteilung\n")
    upload.name = "Zellteilung.csv"
    response = alice_client.post("/study/decks/import/", {"file": upload})
    deck = Deck.objects.get(owner=alice)
    assert response.status_code == 302
    assert deck.title == "Zellteilung" and deck.cards.count() == 2


def test_importing_a_broken_csv_says_why(alice_client):
    upload = io.BytesIO(b"\xff\xfe\xfa")
    upload.name = "bad.csv"
    response = alice_client.post("/study/decks/import/", {"file": upload})
    assert response.status_code == 400
    assert "not UTF-8" in response.content.decode()
    assert not Deck.objects.exists()


def test_studying_shows_one_card_and_answering_brings_the_next(alice_client, alice):
    deck = make_deck(alice, 2, now=timezone.now() - timedelta(minutes=1))
    first, second = deck.cards.all()
    page = alice_client.get(f"/study/decks/{deck.pk}/study/").content.decode()
    assert "Frage 0" in page and "Frage 1" not in page
    assert "flashcard-back" in page and "Got it" in page

    flip = alice_client.post(f"/study/decks/{deck.pk}/cards/{first.pk}/flip/")
    assert flip.status_code == 204
    first.refresh_from_db()
    assert first.flips == 1

    answer = alice_client.post(
        f"/study/decks/{deck.pk}/cards/{first.pk}/review/",
        {"outcome": "got_it"},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert answer.startswith('\n<section id="study-card"') or 'id="study-card"' in answer[:80]
    assert "Frage 1" in answer and "1 of 2 mastered" in answer

    done = alice_client.post(
        f"/study/decks/{deck.pk}/cards/{second.pk}/review/",
        {"outcome": "review"},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert "All caught up" in done


def test_a_review_needs_a_known_outcome(alice_client, alice):
    deck = make_deck(alice, 1)
    card = deck.cards.get()
    url = f"/study/decks/{deck.pk}/cards/{card.pk}/review/"
    assert alice_client.post(url, {"outcome": "maybe"}).status_code == 400
    assert not CardReview.objects.exists()


def test_the_due_queue_studies_cards_from_every_deck(alice_client, alice):
    make_deck(alice, 1, title="Chemie", now=timezone.now() - timedelta(hours=1))
    listing = alice_client.get("/study/decks/").content.decode()
    assert "1 card to review" in listing
    page = alice_client.get("/study/decks/due/").content.decode()
    assert "Chemie" in page and "Frage 0" in page and 'name="queue" value="due"' in page


def test_exports_download_csv_and_apkg(alice_client, alice):
    deck = make_deck(alice, 2, title="Öko logie")
    csv_response = alice_client.get(f"/study/decks/{deck.pk}/export.csv")
    assert csv_response["Content-Type"] == "text/csv"
    assert csv_response.content.decode().startswith("front,back\nFrage 0,Antwort 0\n")
    apkg = alice_client.get(f"/study/decks/{deck.pk}/export.apkg")
    assert 'filename="oko-logie.apkg"' in apkg["Content-Disposition"]
    assert zipfile.is_zipfile(io.BytesIO(apkg.content))
    assert alice_client.get(f"/study/decks/{deck.pk}/export.exe").status_code == 404


def test_bob_cannot_reach_alices_deck_or_cards(alice, bob_client):
    deck = make_deck(alice, 1)
    card = deck.cards.get()
    base = f"/study/decks/{deck.pk}"
    for url in [f"{base}/", f"{base}/study/", f"{base}/export.csv", f"{base}/export.apkg"]:
        assert_only_owner_can_reach(url, bob_client, ["get"])
    for url in [
        f"{base}/rename/",
        f"{base}/delete/",
        f"{base}/cards/",
        f"{base}/cards/{card.pk}/",
        f"{base}/cards/{card.pk}/delete/",
        f"{base}/cards/{card.pk}/flip/",
        f"{base}/cards/{card.pk}/review/",
    ]:
        assert_only_owner_can_reach(url, bob_client, ["post"])
    api = f"/api/v1/study/decks/{deck.pk}"
    assert_only_owner_can_reach(api, bob_client, ["get", "patch", "delete"])
    assert_only_owner_can_reach(f"{api}/cards/{card.pk}", bob_client, ["patch", "delete"])
    assert_only_owner_can_reach(f"{api}/export.csv", bob_client, ["get"])
    # The API's POST routes read JSON: a well-formed body still finds nothing of alice's.
    for url, body in [
        (f"{api}/cards", {"front": "bob", "back": "was here"}),
        (f"{api}/cards/{card.pk}/review", {"outcome": "got_it"}),
    ]:
        response = bob_client.post(url, body, content_type="application/json")
        assert response.status_code == 404, url
    assert bob_client.get("/study/decks/").content.decode().count("Zellbiologie") == 0
    assert bob_client.get("/api/v1/study/decks/due").json() == []
    deck.refresh_from_db()
    assert deck.cards.count() == 1


# --- API ------------------------------------------------------------------------------------


def test_the_api_creates_a_deck_from_cards_and_reviews_one(alice_client):
    created = alice_client.post(
        "/api/v1/study/decks",
        {"title": "API", "cards": [{"front": "1+1", "back": "2"}, {"front": "2+2", "back": "4"}]},
        content_type="application/json",
    )
    assert created.status_code == 201
    deck = created.json()
    assert [c["front"] for c in deck["cards"]] == ["1+1", "2+2"]
    assert deck["due_count"] == 2 and deck["cards"][0]["state"] == "learning"

    card_id = deck["cards"][0]["id"]
    reviewed = alice_client.post(
        f"/api/v1/study/decks/{deck['id']}/cards/{card_id}/review",
        {"outcome": "got_it"},
        content_type="application/json",
    )
    assert reviewed.status_code == 200
    assert reviewed.json()["card"]["mastered"] is True
    assert reviewed.json()["deck_mastered"] is False

    listed = alice_client.get("/api/v1/study/decks").json()
    assert [(d["title"], d["card_count"], d["mastered_count"]) for d in listed] == [("API", 2, 1)]


@pytest.mark.parametrize(
    "body",
    [
        {"cards": []},
        {"cards": [{"front": "", "back": "x"}]},
        {"cards": [{"front": "   ", "back": "x"}]},
        {"cards": "nope"},
        {"num_cards": 7},
    ],
)
def test_the_api_answers_bad_deck_bodies_with_a_json_4xx(alice_client, body):
    response = alice_client.post("/api/v1/study/decks", body, content_type="application/json")
    assert 400 <= response.status_code < 500
    assert "detail" in response.json()
    assert not Deck.objects.exists()


def test_the_api_refuses_an_unknown_outcome(alice_client, alice):
    deck = make_deck(alice, 1)
    card = deck.cards.get()
    response = alice_client.post(
        f"/api/v1/study/decks/{deck.pk}/cards/{card.pk}/review",
        {"outcome": "later"},
        content_type="application/json",
    )
    assert response.status_code == 422 and "detail" in response.json()
