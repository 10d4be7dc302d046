"""Rules without a model: the calculator, the memory budget, Markdown, isolation, the API."""

import json

import pytest

from apps.chat.calculator import CalculatorError, calculate
from apps.chat.models import MEMORY_BUDGET, Message, Thread
from apps.llm.rendering import render_markdown
from tests.helpers.isolation import assert_only_owner_can_reach


@pytest.mark.parametrize(
    "expression",
    ["__import__('os')", "9**9**9", "().__class__", "x + 1", "open('f')", "1/0", "10**400"],
)
def test_the_calculator_refuses_anything_but_bounded_arithmetic(expression):
    with pytest.raises(CalculatorError):
        calculate(expression)


def test_the_calculator_does_arithmetic():
    assert calculate("2 * (3 + 4) - 2**3") == 6
    assert calculate("7 / 2") == 3.5


def ask_and_answer(thread: Thread, question: str, answer: str) -> None:
    reply = thread.ask(question, {}, "")
    reply.content, reply.status = answer, Message.Status.DONE
    reply.save()


def test_the_oldest_pair_drops_first_when_the_budget_is_full(alice):
    thread = Thread.objects.create(owner=alice)
    for number in range(5):
        ask_and_answer(thread, f"question {number} " + "x" * 9_000, "a" * 2_000)
    memory = thread.memory()
    assert memory.used <= MEMORY_BUDGET
    kept = [q.content.split(" ")[1] for q, _ in memory.pairs]
    assert kept == ["1", "2", "3", "4"]


def test_the_first_question_titles_the_thread(alice):
    thread = Thread.objects.create(owner=alice)
    thread.ask("What is the role of the mitochondria in a eukaryotic cell and why?", {}, "")
    thread.refresh_from_db()
    assert thread.title.startswith("What is the role of the mitochondria")
    assert len(thread.title) <= 61


def test_markdown_from_the_model_is_sanitised():
    html = render_markdown(
        "**ok** <script>alert(1)</script> [x](javascript:alert(1)) ![i](http://e/x.png)"
    )
    assert "<strong>ok</strong>" in html
    assert "<script>" not in html and "javascript:" not in html.replace("[x](javascript:", "")
    assert "<img" not in html


def test_bob_cannot_reach_alices_thread(alice, bob_client):
    thread = Thread.objects.create(owner=alice)
    assert_only_owner_can_reach(f"/chat/{thread.pk}/", bob_client, ["get"])
    assert_only_owner_can_reach(f"/chat/{thread.pk}/rename/", bob_client, ["post"])
    assert_only_owner_can_reach(f"/chat/{thread.pk}/delete/", bob_client, ["post"])
    assert_only_owner_can_reach(f"/chat/{thread.pk}/attachments/", bob_client, ["post"])
    assert_only_owner_can_reach(
        f"/api/v1/chat/sessions/{thread.pk}", bob_client, ["get", "patch", "delete"]
    )
    # A body that parses: ninja reads the body before the view can answer 404.
    asked = bob_client.post(
        f"/api/v1/chat/sessions/{thread.pk}/messages",
        {"content": "hi"},
        content_type="application/json",
    )
    assert asked.status_code == 404
    assert Thread.objects.filter(pk=thread.pk).exists()


def test_the_thread_page_shows_the_conversation(alice, alice_client):
    thread = Thread.objects.create(owner=alice)
    ask_and_answer(thread, "What is ATP?", "ATP is **energy**.")
    page = alice_client.get(f"/chat/{thread.pk}/").content.decode()
    assert f'ws-connect="/ws/chat/{thread.pk}/"' in page
    assert "<strong>energy</strong>" in page and "What is ATP?" in page


def test_sessions_can_be_created_renamed_and_deleted_over_the_api(alice_client):
    created = alice_client.post(
        "/api/v1/chat/sessions", {"title": "Biology"}, content_type="application/json"
    )
    assert created.status_code == 201
    session_id = created.json()["id"]
    renamed = alice_client.patch(
        f"/api/v1/chat/sessions/{session_id}", {"title": "Cells"}, content_type="application/json"
    )
    assert renamed.json()["title"] == "Cells"
    assert [s["title"] for s in alice_client.get("/api/v1/chat/sessions").json()] == ["Cells"]
    assert alice_client.delete(f"/api/v1/chat/sessions/{session_id}").status_code == 204


def test_a_session_created_without_a_body_is_a_new_chat(alice_client):
    """Every field is optional, so no body at all is `{}` (a `null` body is still a 400)."""
    created = alice_client.generic("POST", "/api/v1/chat/sessions")
    empty = alice_client.post("/api/v1/chat/sessions", {}, content_type="application/json")
    null = alice_client.post("/api/v1/chat/sessions", "null", content_type="application/json")

    assert created.status_code == empty.status_code == 201
    assert created.json()["title"] == empty.json()["title"] == "New chat"
    assert null.status_code == 400
    assert len(alice_client.get("/api/v1/chat/sessions").json()) == 2


def test_an_empty_question_gets_a_json_422_as_its_schema_says(alice, alice_client):
    thread = Thread.objects.create(owner=alice)
    response = alice_client.post(
        f"/api/v1/chat/sessions/{thread.pk}/messages",
        {"content": "  "},
        content_type="application/json",
    )
    assert response.status_code == 422
    [error] = response.json()["detail"]
    assert (error["loc"][-1], error["msg"]) == ("content", "This cannot be blank: write something.")
    assert not thread.messages.exists()


def test_a_scope_with_someone_elses_document_is_refused(alice, bob, alice_client):
    from tests.helpers.documents import make_document

    bobs = make_document(bob, "secret.txt")
    thread = Thread.objects.create(owner=alice)
    response = alice_client.post(
        f"/api/v1/chat/sessions/{thread.pk}/messages",
        {"content": "What is in it?", "document_ids": [bobs.pk]},
        content_type="application/json",
    )
    # Not found, as a document that does not exist is: another's is told apart by nothing.
    assert response.status_code == 404
    assert response.json() == {"detail": f"No such document: {bobs.pk}."}
    assert not thread.messages.exists()


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_api_streams_ndjson_events(fake_model, cell_notes, alice, alice_client):
    thread = Thread.objects.create(owner=alice)
    response = alice_client.post(
        f"/api/v1/chat/sessions/{thread.pk}/messages",
        {"content": "What do mitochondria do?"},
        content_type="application/json",
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "application/x-ndjson"
    lines = [json.loads(line) for line in b"".join(response).splitlines()]
    types = [line["type"] for line in lines]
    assert types.index("thinking") < types.index("text")
    sources = next(i for i, line in enumerate(lines) if "sources" in (line["data"] or {}))
    assert sources < types.index("text")
    assert lines[sources]["data"]["sources"][0]["filename"] == "cells.pdf"
    memory = next(line for line in lines if line["type"] == "memory")
    assert memory["data"]["budget"] == 48_000 and memory["data"]["used"] > 0
    text = "".join(line["data"] for line in lines if line["type"] == "text")
    assert text.startswith("Mitochondria")
    # The start and the end as docs/api.md shows them.
    metadata = [line["data"] for line in lines if line["type"] == "metadata"]
    assert set(metadata[0]) == {"message_id", "backend", "model", "limits"}
    assert metadata[-1] == {"status": "done", "message_id": metadata[0]["message_id"]}


def test_an_id_too_large_for_the_database_gets_a_422_not_a_500(alice, alice_client):
    thread = Thread.objects.create(owner=alice)
    response = alice_client.post(
        f"/api/v1/chat/sessions/{thread.pk}/messages",
        {"content": "What is in it?", "document_ids": [10**25]},
        content_type="application/json",
    )
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "payload", "document_ids", 0]
    assert not thread.messages.exists()
