"""With a model server: what the model fell short of is cut from the documents and marked,
so a request for 10 gets 10; the method can be chosen either way."""

import pytest

from apps.study.flashcards.models import Deck
from apps.study.quizzes.models import Quiz
from apps.study.stale import says
from apps.study.tests.helpers import add_chunks, generate, mcq, run_worker
from tests.helpers.documents import make_document

from .test_items import TEXTS

pytestmark = pytest.mark.django_db


@pytest.fixture
def notes(alice):
    document = make_document(alice, "notes.txt", status="done")
    add_chunks(document, TEXTS * 2)
    return document


def post(client, path: str, body: dict):
    return client.post(path, body, content_type="application/json")


def test_a_quiz_the_model_falls_short_on_is_filled_from_the_text(alice_client, model, notes):
    model.answer({"questions": [mcq(i) for i in range(3)]})
    made = generate(alice_client, "/api/v1/study/quizzes", {"num_questions": 10})
    assert made["status"] == "ready"
    questions = made["questions"]
    assert len(questions) == 10
    assert [q["extractive"] for q in questions] == [False] * 3 + [True] * 7
    assert len({q["question"] for q in questions}) == 10
    assert Quiz.objects.get().backend == "ollama"


def test_a_quiz_the_model_wrote_nothing_of_says_it_was_cut_from_the_text(
    alice_client, model, notes
):
    model.answer("I cannot make a quiz today.")
    made = generate(alice_client, "/api/v1/study/quizzes", {"num_questions": 5, "method": "model"})
    assert made["status"] == "ready"
    assert all(question["extractive"] for question in made["questions"])
    assert (Quiz.objects.get().backend, made["model"]) == ("extractive", "from the documents' text")


def test_asking_for_extractive_never_calls_the_model(alice_client, model, notes):
    made = generate(
        alice_client, "/api/v1/study/quizzes", {"num_questions": 5, "method": "extractive"}
    )
    assert made["status"] == "ready" and len(made["questions"]) == 5
    assert not model.chats
    assert Quiz.objects.get().backend == "extractive"


def test_a_deck_the_model_falls_short_on_is_filled_from_the_text(alice_client, model, notes):
    model.answer(
        {"cards": [{"front": "What is BM25?", "back": "A ranking function.", "source": 1}]}
    )
    made = generate(alice_client, "/api/v1/study/decks", {"num_cards": 10})
    assert made["status"] == "ready"
    cards = made["cards"]
    assert len(cards) == 10 and [c["extractive"] for c in cards].count(True) == 9
    deck = Deck.objects.get()
    for card in deck.cards.filter(extractive=True).select_related("chunk"):
        assert says(card.chunk.text, card.back)


def test_the_embedded_backend_makes_extractive_the_default(alice_client, notes, settings):
    settings.LLM_BACKEND = "embedded"
    made = generate(alice_client, "/api/v1/study/decks", {"num_cards": 10})
    assert made["status"] == "ready"
    assert all(card["extractive"] for card in made["cards"])


def test_with_only_the_embedded_model_the_form_says_what_choosing_it_means(
    alice_client, model, notes, settings
):
    with_a_server = alice_client.get("/study/decks/").content.decode()
    settings.LLM_BACKEND = "embedded"
    embedded_only = alice_client.get("/study/decks/").content.decode()

    assert ">The language model<" in with_a_server
    assert ">The small embedded model (what it writes may be wrong: check each item)<" in (
        embedded_only
    )


def test_an_unknown_method_is_refused(alice_client, notes):
    response = post(alice_client, "/api/v1/study/quizzes", {"num_questions": 5, "method": "magic"})
    assert response.status_code == 422


def test_the_page_form_offers_the_method(alice_client, model, notes):
    page = alice_client.get("/study/quizzes/").content.decode()
    assert 'name="method"' in page and "From the text itself" in page
    response = alice_client.post(
        "/study/quizzes/",
        {"num_questions": "5", "difficulty": "beginner", "types": ["mcq"], "method": "extractive"},
    )
    assert response.status_code == 302 and not model.chats


def test_the_page_says_how_many_were_cut_from_the_text(alice_client, model, notes):
    model.answer({"questions": [mcq(i) for i in range(3)]})
    response = alice_client.post(
        "/study/quizzes/",
        {"num_questions": "10", "difficulty": "beginner", "types": ["mcq", "true_false"]},
    )
    run_worker()
    # The card on the quiz's page sees it ready: the page reloads into the quiz, and says so.
    poll = alice_client.get(
        f"/study/generations/quiz/{Quiz.objects.get().pk}/", HTTP_HX_REQUEST="true"
    )
    page = alice_client.get(response["Location"]).content.decode()
    assert poll["HX-Refresh"] == "true"
    assert "The model gave 3 usable questions of 10; 7 more were cut" in page
