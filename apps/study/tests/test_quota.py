"""A student's decks, mindmaps and quizzes count towards their storage quota, typed or imported:
past it they are refused with 413 and nothing is kept
(docs/classroom.md#lockout-quotas-and-rate-limits)."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.study.flashcards.models import Card, Deck
from apps.study.mindmaps.models import Mindmap
from apps.study.quizzes.models import Quiz
from apps.study.tests.helpers import make_studied_document
from apps.study.workshops.models import Workshop

pytestmark = pytest.mark.django_db

SIDE = "x" * 2000
# 100 cards of 4,002 characters: both sides, and their pictures' "{}".
FULL_DECK = [{"front": f"{n} {SIDE}"[:2000], "back": SIDE} for n in range(100)]


@pytest.fixture
def quota(settings):
    settings.STUDENT_QUOTA_MB = 1


def post(client, path, body):
    return client.post(path, json.dumps(body), content_type="application/json")


def test_decks_typed_by_the_hundred_stop_at_the_quota(quota, alice, alice_client):
    for _ in range(2):
        assert post(alice_client, "/api/v1/study/decks", {"cards": FULL_DECK}).status_code == 201

    refused = post(alice_client, "/api/v1/study/decks", {"title": "Third", "cards": FULL_DECK})

    assert refused.status_code == 413
    assert "Third: this would go over your storage quota of 1.0\xa0MB" in refused.json()["detail"]
    assert Deck.objects.filter(owner=alice).count() == 2
    assert alice.stored_bytes() == 800_400
    stats = alice_client.get("/api/v1/vault/stats").json()
    assert stats["storage_bytes"] == 800_400


def test_cards_added_or_grown_stop_at_the_quota(quota, alice, alice_client):
    for _ in range(2):
        post(alice_client, "/api/v1/study/decks", {"cards": FULL_DECK})
    deck = Deck.objects.filter(owner=alice).first()
    small = post(alice_client, f"/api/v1/study/decks/{deck.pk}/cards", {"front": "a", "back": "b"})
    assert small.status_code == 201
    card = Card.objects.get(pk=small.json()["id"])
    left = 2**20 - 800_400 - 4
    added = [
        post(alice_client, f"/api/v1/study/decks/{deck.pk}/cards", FULL_DECK[0]).status_code
        for _ in range(left // 4_002 + 2)
    ]

    assert added == [201] * (left // 4_002) + [413] * 2
    grown = alice_client.patch(  # a card of 4 characters made one of 4,000
        f"/api/v1/study/decks/{deck.pk}/cards/{card.pk}",
        json.dumps({"front": SIDE, "back": SIDE}),
        content_type="application/json",
    )

    assert grown.status_code == 413
    card.refresh_from_db()
    assert (card.front, card.back) == ("a", "b")


def test_mindmaps_and_imported_quizzes_count_too(quota, alice, alice_client):
    post(alice_client, "/api/v1/study/decks", {"cards": FULL_DECK * 2})  # 800,400 characters

    def node(level):  # the largest tree a mindmap holds: 4 levels of 8, notes of 500
        children = [node(level + 1) for _ in range(8)] if level < 4 else []
        return {"title": "Zelle", "note": "n" * 500, "children": children}

    tree = node(1)

    map_refused = post(alice_client, "/api/v1/study/mindmaps", {"tree": tree})
    gift = "".join(f"::Q{n}:: {'Warum ' * 300}? {{=ja ~nein}}\n\n" for n in range(150))
    upload = SimpleUploadedFile("bank.gift", gift.encode(), content_type="text/plain")
    quiz_refused = alice_client.post("/api/v1/study/quizzes/import", {"file": upload})

    assert map_refused.status_code == 413 and quiz_refused.status_code == 413
    assert not Mindmap.objects.filter(owner=alice).exists()
    assert not Quiz.objects.filter(owner=alice).exists()


def test_a_teacher_has_no_quota(quota, tess, tess_client):
    for _ in range(3):
        assert post(tess_client, "/api/v1/study/decks", {"cards": FULL_DECK}).status_code == 201
    assert tess.stored_bytes() == 1_200_600


def fill(client) -> Card:
    """The student's quota all but used (less room left than one full card); a card of two
    letters among the full ones."""
    for _ in range(2):
        post(client, "/api/v1/study/decks", {"cards": FULL_DECK})
    deck = Deck.objects.first()
    small = post(client, f"/api/v1/study/decks/{deck.pk}/cards", {"front": "a", "back": "b"})
    while post(client, f"/api/v1/study/decks/{deck.pk}/cards", FULL_DECK[0]).status_code == 201:
        pass
    return Card.objects.get(pk=small.json()["id"])


def test_a_card_or_question_made_longer_on_its_page_past_the_quota_says_so(
    quota, alice, alice_client
):
    upload = SimpleUploadedFile(
        "bank.gift", b"::Q:: Wo? {=Zelle ~Kern}\n", content_type="text/plain"
    )
    imported = alice_client.post("/api/v1/study/quizzes/import", {"file": upload})
    quiz = Quiz.objects.get(pk=imported.json()["id"])
    card = fill(alice_client)

    card_page = alice_client.post(
        f"/study/decks/{card.deck_id}/cards/{card.pk}/", {"front": SIDE, "back": SIDE}
    )
    question_page = alice_client.post(
        f"/study/quizzes/{quiz.pk}/questions/0/",
        {"question": "Wo? " + SIDE, "options": ["Zelle", "Kern"], "correct_index": "0"},
    )

    for name, page in (("card", card_page), ("question", question_page)):
        assert page.status_code == 400, name
        assert "this would go over your storage quota" in page.text, name
    card.refresh_from_db()
    assert (card.front, card.back) == ("a", "b")
    assert quiz.questions.get().text == "Wo?"


def test_a_student_with_no_room_left_generates_nothing_and_workshops_count(
    quota, alice, alice_client
):
    make_studied_document(alice)
    workshop = Workshop.objects.create(owner=alice, title="Zellen", requested=5)
    workshop.lessons.create(number=1, title="Die Zelle", content="z" * 500_000)
    deck = fill(alice_client).deck  # what the workshop's 500,000 characters leave, all but
    left = alice.room_bytes() - 2  # a card's "{}" of no pictures
    assert 4 < left < 4_002
    last = {"front": "x" * (left // 2), "back": "y" * (left - left // 2)}
    assert post(alice_client, f"/api/v1/study/decks/{deck.pk}/cards", last).status_code == 201
    assert alice.room_bytes() == 0

    refused = post(alice_client, "/api/v1/study/quizzes", {"num_questions": 5})

    assert refused.status_code == 413
    assert refused.json()["detail"].startswith("A new quiz: this would go over your storage quota")
    assert not Quiz.objects.filter(owner=alice).exists()
    assert alice.stored_bytes() == 2**20  # the workshop counted, to the last character
