"""Quizzes, decks, mindmaps and workshops with no Ollama: the embedded backend answers, so the
Study Hub cuts everything from a vault of real files in every format (a scanned page too),
and every answer is a span of the chunk it cites."""

import pytest

from apps.study.flashcards.models import Deck
from apps.study.mindmaps.models import Mindmap
from apps.study.mindmaps.tree import walk
from apps.study.quizzes.models import Quiz
from apps.study.stale import says
from apps.study.tests.helpers import generate
from apps.study.workshops.models import Workshop
from apps.vault.cloze import BLANK
from apps.vault.keyterms import same_family
from apps.vault.models import Chunk, Document
from apps.vault.tests.helpers import closed_port_url, ingest, upload

from .corpus import make

pytestmark = [pytest.mark.embedded, pytest.mark.django_db]


@pytest.fixture
def vault(alice, settings, tmp_path, django_capture_on_commit_callbacks):
    settings.LLM_BACKEND = settings.EMBEDDING_BACKEND = "embedded"
    settings.OLLAMA_HOST = closed_port_url()  # nothing answers there: no model server at all
    for path in make(tmp_path):
        upload(alice, path)
    run = ingest(alice, django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    assert run.status == "done"
    return alice


def chunk_text(chunk_id: int) -> str:
    return Chunk.objects.get(pk=chunk_id).text


def test_a_quiz_of_5_is_cut_from_the_documents(vault, alice_client):
    made = generate(alice_client, "/api/v1/study/quizzes", {"num_questions": 5})
    assert made["status"] == "ready", made
    quiz = Quiz.objects.get()
    questions = list(quiz.questions.all())
    assert len(questions) == 5 and quiz.backend == "extractive"
    assert len({q.text for q in questions}) == 5
    for question in questions:
        [chunk_id] = question.chunk_ids
        text = chunk_text(chunk_id)
        assert question.explanation in text
        answer = question.options[question.correct_index]
        if question.kind == "mcq":
            assert BLANK in question.text and answer in text
            wrong = [o for i, o in enumerate(question.options) if i != question.correct_index]
            assert len(set(map(str.casefold, question.options))) == 4
            assert not any(same_family(option, answer) for option in wrong)
        else:
            assert question.options == ["True", "False"]
            if question.correct_index == 0:
                assert " ".join(question.explanation.split()) == question.text


def test_a_deck_of_10_has_every_back_in_its_chunk(vault, alice_client):
    made = generate(alice_client, "/api/v1/study/decks", {"num_cards": 10})
    assert made["status"] == "ready", made
    cards = list(Deck.objects.get().cards.select_related("chunk"))
    assert len(cards) == 10
    assert len({" ".join(card.front.casefold().split()) for card in cards}) == 10
    for card in cards:
        assert card.chunk is not None and says(card.chunk.text, card.back)
    fronts = {card.front for card in cards}
    assert {"BM25", "FAISS"} & fronts  # definitions from the PDF
    assert "Chunk" in fronts or "Scope" in fronts  # glossary lines


def test_a_mindmap_follows_each_documents_structure(vault, alice_client):
    structured = ["retrieval.pdf", "genetics.md", "zellen.docx", "budget.xlsx", "enzymes.html"]
    chosen = list(Document.objects.filter(filename__in=structured).values_list("pk", flat=True))
    made = generate(
        alice_client, "/api/v1/study/mindmaps", {"title": "My vault", "document_ids": chosen}
    )
    assert made["status"] == "ready", made
    mindmap = Mindmap.objects.get()
    titles = {node["title"] for _, node, _, _ in walk(mindmap.tree)}
    assert "Retrieval" in titles or "Keyword search" in titles  # the PDF outline
    assert {"Genetics", "Ecology"} <= titles  # Markdown headings
    assert "Zellbiologie" in titles  # DOCX headings
    assert "Budget" in titles  # the sheet
    assert "How enzymes work" in titles  # the HTML heading
    live = set(Chunk.objects.live().values_list("pk", flat=True))
    for node_id, node, _, _ in walk(mindmap.tree):
        assert node.get("source") in live, node_id
    assert "extractive" in mindmap.model_label


def test_a_workshop_is_written_from_the_passages_at_once(vault, alice_client):
    made = generate(alice_client, "/api/v1/study/workshops", {"num_lessons": 5})
    assert made["status"] == "ready", made
    workshop = Workshop.objects.get()
    lessons = list(workshop.lessons.all())
    assert len(lessons) == 5 and workshop.backend == "extractive"
    for lesson in lessons:
        assert lesson.status == "ready" and lesson.chunk_ids
        assert lesson.content.strip()
    assert any("### Check yourself" in lesson.content for lesson in lessons)


def test_a_mindmap_of_the_whole_vault_says_what_it_left_out(vault, alice_client):
    made = generate(alice_client, "/api/v1/study/mindmaps", {})
    assert made["status"] == "ready", made
    tree = Mindmap.objects.get().tree
    assert len(tree["children"]) == 8 and tree["note"] == "The 8 largest of 9 shown."
