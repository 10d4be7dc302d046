"""Decks generated through the shared recipe, against a fake model server."""

import pytest

from apps.study.flashcards.generation import TEXT_LABEL
from apps.study.models import Deck
from apps.study.stale import says
from apps.study.tests.helpers import (
    add_chunks,
    generate,
    make_studied_document,
    run_worker,
)
from tests.helpers.documents import make_document

pytestmark = pytest.mark.django_db


def cards(count: int, **extra) -> dict:
    return {
        "cards": [
            {"front": f"Question {i}?", "back": f"Answer {i}.", "source": 1, **extra}
            for i in range(count)
        ]
    }


def test_generating_a_deck_from_the_page_asks_for_exactly_n_and_keeps_sources(
    alice, alice_client, model
):
    make_studied_document(alice)
    answer = cards(12)  # the model overshoots: extras are trimmed
    answer["cards"][3] = {"front": "", "back": "dropped"}
    answer["cards"][4] = {"front": "Question 0?", "back": "a repeat is dropped"}
    model.answer(answer)
    response = alice_client.post("/study/decks/generate/", {"num_cards": "10"})
    run_worker()
    deck = Deck.objects.get(owner=alice)
    assert response.status_code == 302 and response.url == f"/study/decks/{deck.pk}/"
    assert deck.status == "ready" and deck.cards.count() == 10
    assert "EXACTLY 10" in model.prompt()
    answer_shape = model.chats[-1]["format"]["properties"]["cards"]
    assert answer_shape["maxItems"] == 10
    assert set(answer_shape["items"]["required"]) >= {"front", "back", "source"}
    first_chunk = deck.cards.first().chunk
    assert first_chunk is not None and first_chunk.document.owner == alice
    assert deck.title.startswith("Cards on")


def test_generation_errors_are_shown_on_the_page(alice, alice_client, model):
    empty = alice_client.post("/study/decks/generate/", {"num_cards": "10"})
    assert empty.status_code == 400
    make_studied_document(alice)
    assert not Deck.objects.exists()  # an empty vault is refused before anything is queued
    model.fail_with = (500, "boom")
    down = alice_client.post("/study/decks/generate/", {"num_cards": "20"})
    run_worker()
    page = alice_client.get(down.url).content.decode()
    deck = Deck.objects.get()
    assert down.status_code == 302 and deck.status == "failed" and not deck.cards.exists()
    assert "language model" in deck.error
    assert deck.error in page and "Try again" in page


def test_a_model_answer_with_no_card_is_filled_from_the_text(alice, alice_client, model):
    make_studied_document(alice)
    model.answer("I cannot make cards today.")
    filled = alice_client.post("/study/decks/generate/", {"num_cards": "10"})
    run_worker()
    assert filled.status_code == 302
    cards = list(Deck.objects.get().cards.all())
    assert cards and all(card.extractive and card.chunk_id for card in cards)
    assert all(says(card.chunk.text, card.back) for card in cards)
    # No model wrote any of them, and the deck says so.
    assert Deck.objects.get().model_label == TEXT_LABEL


def test_the_api_generates_a_deck_and_maps_errors_to_json(alice, alice_client, model):
    response = alice_client.post(
        "/api/v1/study/decks", {"num_cards": 10}, content_type="application/json"
    )
    assert response.status_code == 400 and "no documents" in response.json()["detail"]
    make_studied_document(alice)
    model.answer(cards(10))
    created = generate(alice_client, "/api/v1/study/decks", {"num_cards": 10})
    assert created["status"] == "ready" and len(created["cards"]) == 10
    assert created["cards"][0]["chunk_id"] is not None
    model.fail_with = (500, "boom")
    down = generate(alice_client, "/api/v1/study/decks", {"num_cards": 10})
    assert down["status"] == "failed" and "language model" in down["error"]
    assert down["cards"] == []


def test_a_scope_with_bobs_document_builds_nothing_for_alice(alice, bob, alice_client, model):
    bobs = make_studied_document(bob, "bob.txt")
    model.answer(cards(10))
    response = alice_client.post(
        "/api/v1/study/decks",
        {"num_cards": 10, "document_ids": [bobs.pk]},
        content_type="application/json",
    )
    assert response.status_code == 404  # not found, as one that does not exist is
    assert not model.chats  # nothing of bob's reached a prompt


def test_a_card_citing_several_excerpts_keeps_the_one_it_was_made_from(alice, alice_client, model):
    document = make_document(alice, "organelles.txt", status="done")
    mitochondria, ribosomes, _ = add_chunks(document, [
        "Mitochondria make the energy of the cell.",
        "Ribosomes build proteins from amino acids.",
        "Chloroplasts capture the light of the sun.",
    ])  # fmt: skip
    model.answer({"cards": [
        {"front": "What builds proteins?", "back": "Ribosomes do.", "source": [1, 2, 3]},
        {"front": "What makes the energy?", "back": "Mitochondria."},  # cites nothing
        {"front": "Xylem?", "back": "Vessels.", "source": [1, 2]},  # shares no word with them
    ]})  # fmt: skip
    created = generate(alice_client, "/api/v1/study/decks", {"num_cards": 10, "method": "model"})
    assert created["status"] == "ready"
    chunk_of = {card["front"]: card["chunk_id"] for card in created["cards"]}
    assert chunk_of["What builds proteins?"] == ribosomes.pk
    assert chunk_of["What makes the energy?"] == mitochondria.pk
    assert chunk_of["Xylem?"] is None  # no guess rather than a wrong source
