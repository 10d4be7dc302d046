"""Generation is rate-limited per person, the same on the page and in the API: past the rate a
request is refused with 429 and a message before any model is asked, and nothing is made."""

import pytest

from apps.study.flashcards.models import Deck
from apps.study.mindmaps.models import Mindmap
from apps.study.quizzes.models import Quiz
from apps.study.workshops.models import Workshop

HTMX = {"HTTP_HX_REQUEST": "true"}
QUIZ = {"num_questions": 5, "difficulty": "beginner", "types": ["mcq"]}
WORKSHOP = {"num_lessons": 5}
DECK = {"num_cards": 10}

# (page path, page form, API path, API body) for each thing generated from the vault.
GENERATORS = {
    "quiz": ("/study/quizzes/", QUIZ, "/api/v1/study/quizzes", QUIZ),
    "workshop": ("/study/workshops/", WORKSHOP, "/api/v1/study/workshops", WORKSHOP),
    "deck": ("/study/decks/generate/", DECK, "/api/v1/study/decks", DECK),
    "mindmap": ("/study/mindmaps/generate/", {}, "/api/v1/study/mindmaps", {}),
}


@pytest.mark.parametrize("kind", GENERATORS)
@pytest.mark.usefixtures("midday")  # a minute's rate window must not turn mid-test
def test_generating_past_the_rate_is_refused_alike_on_the_page_and_in_the_api(
    kind, alice, alice_client, bob_client, settings
):
    settings.RATE_LIMIT_GENERATION = "1/m"
    page_path, form, api_path, body = GENERATORS[kind]
    # The first asks (and is refused for the empty vault); it counts all the same.
    first = alice_client.post(api_path, body, content_type="application/json")
    assert first.status_code == 400

    api = alice_client.post(api_path, body, content_type="application/json")
    page = alice_client.post(page_path, form, **HTMX)

    assert api.status_code == 429
    assert api.json()["detail"].startswith("Too many study generations: at most 1 per minute.")
    assert page.status_code == 429
    assert "Too many study generations: at most 1 per minute." in page.text
    for made in (Quiz, Workshop, Deck, Mindmap):
        assert not made.objects.filter(owner=alice).exists()
    # The limit is per person: bob is refused for his empty vault, not for alice's rate.
    assert bob_client.post(api_path, body, content_type="application/json").status_code == 400


@pytest.mark.usefixtures("midday")  # a minute's rate window must not turn mid-test
def test_a_deck_brought_as_cards_is_not_a_generation(alice_client, settings):
    settings.RATE_LIMIT_GENERATION = "1/m"
    body = {"title": "Cells", "cards": [{"front": "Cell", "back": "The unit of life."}]}
    for _ in range(3):
        made = alice_client.post("/api/v1/study/decks", body, content_type="application/json")
        assert made.status_code == 201
