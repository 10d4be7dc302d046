"""Items whose source changed: re-ingesting an edited file retires the chunks they cite; they
say so with the new passage, one action refreshes only them, and the Study Hub counts them."""

import pytest
from django.utils import timezone

from apps.study import stale
from apps.study.flashcards import scheduling
from apps.study.flashcards import stale as flashcards_stale
from apps.study.flashcards.models import Card, CardReview, Deck
from apps.study.mindmaps import stale as mindmaps_stale
from apps.study.mindmaps.models import Mindmap
from apps.study.quizzes.models import Quiz
from apps.study.stale import says
from apps.study.tests.helpers import generate
from apps.study.workshops import stale as workshops_stale
from apps.study.workshops.models import Workshop
from apps.vault.tests.helpers import ingest, upload

pytestmark = pytest.mark.django_db

NOTES = """# Retrieval

BM25 is a ranking function that scores passages by term frequency. The tokenizer keeps
identifiers like BZ_OUTBUFF_FULL whole, so an exact error code finds its passage.

# Vectors

FAISS is a library for similarity search over dense vectors. HNSW is a graph index for
approximate search, and RRF fuses the dense and the keyword ranking with k = 60.

# Cells

Mitochondrien sind die Kraftwerke der Zelle. Chloroplasten enthalten Chlorophyll, das rotes
und blaues Licht absorbiert. Ribosomen bauen Proteine aus Aminosäuren.
"""


@pytest.fixture
def studied(alice, alice_client, model, tmp_path, django_capture_on_commit_callbacks):
    """Alice's notes ingested, and a quiz, a deck, a workshop and a mindmap cut from them."""
    path = tmp_path / "notes.md"
    path.write_text(NOTES, encoding="utf-8")
    upload(alice, path)
    ingest(alice, django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    body = {"method": "extractive"}
    for route, size in (("quizzes", {"num_questions": 5}), ("decks", {"num_cards": 10}),
                        ("workshops", {"num_lessons": 5}), ("mindmaps", {})):  # fmt: skip
        made = generate(alice_client, f"/api/v1/study/{route}", {**body, **size})
        assert made["status"] == "ready", made

    def edit(text: str) -> None:
        path.write_text(text, encoding="utf-8")
        upload(alice, path)  # the same name: the same document, new content
        ingest(alice, django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)

    return edit


def test_nothing_is_stale_until_the_file_changes(alice, studied):
    assert stale.counts(alice)["total"] == 0


def test_an_edited_file_makes_its_items_stale_and_the_hub_counts_them(alice, alice_client, studied):
    studied(NOTES.replace("k = 60", "k = 30") + "\nA new closing line about Lysosomen.\n")
    counts = stale.counts(alice)
    assert (
        counts["questions"] == 5 and counts["cards"] == 10 and counts["lessons"] and counts["nodes"]
    )
    page = alice_client.get("/study/quizzes/").content.decode()
    assert 'id="stale-count"' in page and "5 questions" in page
    assert alice_client.get("/api/v1/study/stale").json()["total"] == counts["total"]
    quiz = alice_client.get(f"/api/v1/study/quizzes/{Quiz.objects.get().pk}").json()
    assert all(question["source_changed"] for question in quiz["questions"])


def test_the_review_shows_the_new_passage_and_refreshing_keeps_the_score(alice, alice_client,
                                                                         studied):  # fmt: skip
    quiz = Quiz.objects.get()
    attempt, _ = quiz.submit([q.correct_index for q in quiz.questions.all()])
    studied(NOTES.replace("k = 60", "k = 30"))
    review = alice_client.get(f"/study/quizzes/{quiz.pk}/attempts/{attempt.pk}/").content.decode()
    assert "Source changed" in review and "Refresh only these" in review
    assert " questions:" in review and f'action="/study/stale/quiz/{quiz.pk}/refresh/"' in review
    assert "passage that answers it now" in review

    refreshed = alice_client.post(f"/api/v1/study/quizzes/{quiz.pk}/refresh").json()
    assert refreshed == {"refreshed": 5, "stale": 0}
    attempt.refresh_from_db()
    assert attempt.percent == 100  # scores already given stay
    for question in quiz.questions.all():
        live_texts = stale.current(question.chunk_ids).values_list("text", flat=True)
        assert any(question.explanation in text for text in live_texts)


def test_refreshing_a_deck_keeps_its_reviews(alice, alice_client, studied):
    deck = Deck.objects.get()
    card = deck.cards.first()
    scheduling.review(card, "got_it", now=timezone.now())
    studied(NOTES.replace("Ribosomen bauen", "Ribosomen synthetisieren"))
    assert len(flashcards_stale.stale_cards(deck)) == 10
    page = alice_client.post(f"/study/stale/deck/{deck.pk}/refresh/", follow=True)
    assert "Refreshed 10 items" in page.content.decode()
    assert flashcards_stale.stale_cards(deck) == []
    assert CardReview.objects.filter(card=card).count() == 1
    for refreshed in Card.objects.filter(deck=deck).select_related("chunk"):
        assert says(refreshed.chunk.text, refreshed.back)


def test_workshops_and_mindmaps_refresh_only_their_stale_parts(alice, alice_client, studied):
    studied(NOTES + "\n# Extra\n\nLysosomen sind die Verdauungsorgane der Zelle.\n")
    workshop, mindmap = Workshop.objects.get(), Mindmap.objects.get()
    assert workshops_stale.stale_lessons(workshop) and mindmaps_stale.stale_nodes(mindmap)
    done = alice_client.post(f"/api/v1/study/workshops/{workshop.pk}/refresh").json()
    assert done["stale"] == 0 and done["refreshed"] == workshop.lessons.count()
    assert all(lesson.content for lesson in workshop.lessons.all())
    done = alice_client.post(f"/api/v1/study/mindmaps/{mindmap.pk}/refresh").json()
    assert done["stale"] == 0
    assert (
        stale.counts(alice)["total"]
        == stale.counts(alice)["questions"] + stale.counts(alice)["cards"]
    )


def test_bob_cannot_refresh_alices_items(alice, bob_client, studied):
    quiz = Quiz.objects.get()
    assert bob_client.post(f"/api/v1/study/quizzes/{quiz.pk}/refresh").status_code == 404
    assert bob_client.post(f"/study/stale/quiz/{quiz.pk}/refresh/").status_code == 404
