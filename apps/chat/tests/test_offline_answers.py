"""Chat without a model that can answer faithfully (the embedded SmolLM2): no model writes a
word. Tools answer what they plainly can; anything else is quoted from the search's passages
under a line that says so. With Ollama, the model writes the answer as before."""

import json
import re

import pytest
from channels.db import database_sync_to_async

from apps.chat import agent, offline
from apps.chat.evidence import best_sentences
from apps.chat.models import Message, Thread
from apps.chat.tests.helpers import CHUNK_TEXT, frames_until_final, open_socket
from apps.chat.tests.model_script import ANSWER, EMBEDDING, chat_script
from apps.llm import gateway
from apps.llm.tests.fake_ollama import FakeOllama
from apps.vault.models import Document
from apps.vault.tests.helpers import closed_port_url
from tests.helpers.documents import make_document

NO_MODEL = "No language model wrote this answer"
transactional = pytest.mark.django_db(transaction=True, serialized_rollback=True)


@pytest.fixture
def offline_model(settings, chat_worker):
    """The embedded chat model (never loaded: nothing asks it to write) and the fake Ollama
    for embeddings only; its chat requests are recorded, so a test sees there were none."""
    server = FakeOllama(chat_script)
    server.embedding = EMBEDDING
    yield from server.serve(settings, OLLAMA_RETRIES=0, LLM_BACKEND="embedded")


@pytest.mark.parametrize(
    ("question", "tool"),
    [
        ("what is 17*23", ("calculator", {"expression": "17*23"})),
        ("Was ist 12 + 30?", ("calculator", {"expression": "12 + 30"})),
        ("(2.5 x 4) / 5 =", ("calculator", {"expression": "(2.5 * 4) / 5"})),
        ("17×3", ("calculator", {"expression": "17 * 3"})),
        ("Which documents do I have?", ("list_documents", {})),
        ("welche Dokumente habe ich", ("list_documents", {})),
        ("What time is it?", ("current_time", {})),
        ("What does bzip2recover do with a damaged file?", None),
        ("What is BM25?", None),
        ("What is 2024?", None),
        ("what is 1/0", None),
    ],
)
def test_offline_a_tool_is_picked_by_plain_rules(question, tool):
    assert offline.pick_tool(question) == tool


def citation(number: int, document_id: int, chunk_id: int, text: str) -> dict:
    return {
        "number": number,
        "chunk_id": chunk_id,
        "document_id": document_id,
        "filename": f"doc{document_id}.txt",
        "page": None,
        "section": "",
        "text": text,
        "score": 0.0,
    }


def quotes_best(quotes) -> int:
    return max(quotes, key=lambda quote: quote.score).citation["document_id"]


@pytest.mark.django_db
def test_offline_quotes_stand_verbatim_in_reading_order_by_keywords_without_embeddings(settings):
    settings.EMBEDDING_BACKEND = "ollama"
    settings.OLLAMA_HOST, settings.OLLAMA_RETRIES = closed_port_url(), 0
    citations = [
        citation(
            1, 7, 30, "A damaged file can be repaired:\nbzip2recover writes each block apart."
        ),
        citation(2, 5, 12, "Compression works on blocks of 900k. Damaged files lose one block."),
        citation(3, 7, 29, "Bzip2recover finds each block by its 48-bit marker. It is fast."),
    ]
    quotes = best_sentences("What does bzip2recover do with a damaged file?", citations)

    assert 2 <= len(quotes) <= 4
    for quote in quotes:
        assert quote.text in " ".join(quote.citation["text"].split())
    documents = [q.citation["document_id"] for q in quotes]
    assert documents.index(quotes_best(quotes)) == 0  # the best sentence's document first
    for first, then in zip(quotes, quotes[1:], strict=False):
        if first.citation["document_id"] == then.citation["document_id"]:  # each in its order
            assert (first.citation["chunk_id"], first.start) < (
                then.citation["chunk_id"],
                then.start,
            )
        else:
            assert then.citation["document_id"] not in documents[: quotes.index(first)]
    texts = [q.text for q in quotes]
    assert "A damaged file can be repaired: bzip2recover writes each block apart." in texts
    assert "It is fast." not in texts  # too short to be worth quoting


def test_the_no_model_line_says_how_to_get_a_model_that_writes(settings):
    settings.LLM_MODEL = "qwen3:8b"
    answer = offline.quoted_answer("anything", [])
    line = answer.splitlines()[0]
    assert line.startswith(f"*{NO_MODEL}") and "`ollama pull qwen3:8b`" in line
    assert "Nothing in your documents matches this question." in answer


def test_only_the_embedded_model_is_marked_too_small_to_answer_faithfully(settings):
    settings.LLM_BACKEND = "embedded"
    assert not gateway.current_backend().faithful
    assert "answers quoted from your documents, not written" in gateway.current_backend().limits
    settings.LLM_BACKEND = "ollama"
    assert gateway.current_backend().faithful


def events_of(thread: Thread, question: str) -> list[agent.Event]:
    return list(agent.answer(thread.ask(question, {}, "").pk))


@transactional
def test_offline_a_calculation_is_answered_by_the_calculator(offline_model, alice):
    events = events_of(Thread.objects.create(owner=alice), "what is 17*23")

    assert "Using calculator…" in [e.data for e in events if e.type == "notice"]
    [text] = [e.data for e in events if e.type == "text"]
    assert NO_MODEL in text and "`17*23` = **391**" in text
    assert "sources" not in [e.type for e in events]
    assert offline_model.chats == []


@transactional
def test_offline_which_documents_lists_them(offline_model, alice, bob):
    make_document(alice, "genetics.md", status=Document.Status.DONE)
    make_document(alice, "zellen.docx", status=Document.Status.DONE)
    make_document(bob, "bobs-diary.txt", status=Document.Status.DONE)
    events = events_of(Thread.objects.create(owner=alice), "Which documents do I have?")

    [text] = [e.data for e in events if e.type == "text"]
    assert "Your documents (2):" in text and "- genetics.md" in text and "- zellen.docx" in text
    assert "bobs-diary" not in text
    assert offline_model.chats == []


@transactional
@pytest.mark.asyncio
async def test_offline_the_socket_shows_sources_then_the_quotes_then_the_memory(
    offline_model, cell_notes, alice, alice_thread
):
    socket = await open_socket(alice, alice_thread.pk)
    await socket.send_json_to({"action": "ask", "content": "What do mitochondria make?"})
    frames = await frames_until_final(socket)
    await socket.disconnect()

    text = "".join(frames)
    sources = text.index('class="sources" hx-swap-oob')
    first_token = re.search(r'id="answer-tokens-\d+" hx-swap-oob="beforeend"', text).start()
    assert sources < first_token
    assert 'id="memory"' in frames[-1]
    assert "Quoted from your documents (embedded; no language model wrote it)." in frames[-1]
    answer = await database_sync_to_async(alice_thread.messages.last)()
    assert answer.status == Message.Status.DONE
    assert answer.backend == "embedded" and answer.model == offline.EXTRACTIVE
    assert answer.content.startswith(f"*{NO_MODEL}")
    assert f"> {CHUNK_TEXT} [1]" in answer.content
    assert offline_model.chats == []


@transactional
def test_offline_the_api_streams_the_same_events_in_the_same_order(
    offline_model, cell_notes, alice, alice_client
):
    thread = Thread.objects.create(owner=alice)
    response = alice_client.post(
        f"/api/v1/chat/sessions/{thread.pk}/messages",
        {"content": "What do mitochondria make?"},
        content_type="application/json",
    )
    assert response.status_code == 200
    lines = [json.loads(line) for line in b"".join(response).splitlines()]
    kinds = [
        next(iter(line["data"])) if line["type"] == "metadata" else line["type"] for line in lines
    ]
    assert kinds == ["message_id", "notice", "sources", "text", "memory", "status"]
    assert lines[0]["data"]["backend"] == "embedded" and lines[0]["data"]["model"] == "extractive"
    assert lines[2]["data"]["sources"][0]["filename"] == "cells.pdf"
    assert CHUNK_TEXT in lines[3]["data"] and NO_MODEL in lines[3]["data"]
    assert lines[-1]["data"]["status"] == "done"


@transactional
def test_with_ollama_the_model_still_writes_the_answer(fake_model, cell_notes, alice):
    events = events_of(Thread.objects.create(owner=alice), "What do mitochondria do?")

    kinds = [e.type for e in events]
    assert kinds[0] == "start" and events[0].data["model"] == "gemma4:e4b"
    assert kinds.index("thinking") < kinds.index("sources") < kinds.index("text")
    assert "".join(e.data for e in events if e.type == "text") == ANSWER
    assert kinds[-2:] == ["memory", "end"]
    answer = Message.objects.get(pk=events[0].data["message_id"])
    assert answer.content == ANSWER and answer.model == "gemma4:e4b"
    assert len(fake_model.chats) == 3  # thinking, the search call, the answer


def test_the_chat_page_says_answers_are_quoted_when_only_the_embedded_model_is_here(
    settings, alice, alice_client
):
    settings.LLM_BACKEND = "embedded"
    settings.OLLAMA_HOST = closed_port_url()
    thread = Thread.objects.create(owner=alice)

    head = alice_client.get(f"/chat/{thread.pk}/").text

    assert "Answers are quoted from your documents: the embedded model" in head
    assert "Answers by" not in head and "English only" not in head
