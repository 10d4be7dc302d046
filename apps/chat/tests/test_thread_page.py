import re

import pytest

from apps.chat.models import Thread
from apps.vault.models import Chunk
from tests.helpers.documents import make_document

pytestmark = pytest.mark.django_db


def test_the_conversation_is_not_mistaken_for_notifications(alice, alice_client):
    """Django's message framework owns the name `messages` in the page shell."""
    thread = Thread.objects.create(owner=alice)
    thread.ask("What makes ATP?", {}, "")
    page = alice_client.get(f"/chat/{thread.pk}/").text
    assert '<ul class="messages">' not in page
    assert page.count("What makes ATP?") >= 2  # the title and the question bubble


def test_a_cited_source_opens_at_its_passage_with_its_document_and_page(alice, alice_client):
    document = make_document(alice, "cells.pdf", status="done", pages=3)
    chunk = Chunk.objects.create(
        document=document,
        document_sha256=document.sha256,
        ordinal=0,
        page=2,
        text="Mitochondria are the powerhouse of the cell.",
    )
    thread = Thread.objects.create(owner=alice)
    thread.messages.create(role="user", content="What makes ATP?")
    citation = {
        "number": 1,
        "chunk_id": chunk.pk,
        "document_id": document.pk,
        "filename": "cells.pdf",
        "page": 2,
        "section": "",
        "text": chunk.text,
    }
    thread.messages.create(role="assistant", content="Mitochondria [1].", citations=[citation])

    page = alice_client.get(f"/chat/{thread.pk}/").text
    link = re.search(r'<a href="([^"]+)">Open cells.pdf at page 2</a>', page)
    assert link and link[1] == f"/vault/documents/{document.pk}/?page=2&amp;chunk={chunk.pk}"
    reader = alice_client.get(link[1].replace("&amp;", "&"))
    assert reader.status_code == 200
    assert "powerhouse of the cell" in reader.text and 'data-start="page-2"' in reader.text
    assert "cells.pdf" in reader.text and "on page 2" in reader.text


@pytest.mark.parametrize(("backend", "shown"), [("ollama", True), ("embedded", False)])
def test_the_starters_show_only_where_a_model_writes_the_answers(
    settings, alice, alice_client, backend, shown
):
    """Offline, answers are quoted sentences: "Summarise the key points of my documents" would
    be answered by whichever sentences match it best, so no starter offers it."""
    settings.LLM_BACKEND = backend
    index = alice_client.get("/chat/").text
    thread = Thread.objects.create(owner=alice)
    page = alice_client.get(f"/chat/{thread.pk}/").text
    for html in (index, page):
        assert ("Summarise the key points of my documents." in html) == shown
        assert ('class="starter"' in html) == shown
    assert "Ask anything about your documents" in page


def test_the_record_button_draws_its_microphone_itself(alice, alice_client, monkeypatch):
    """An inline SVG, not an emoji: a machine without an emoji font showed an empty box."""
    monkeypatch.setattr("apps.llm.gateway.speech_available", lambda: True)
    thread = Thread.objects.create(owner=alice)
    page = alice_client.get(f"/chat/{thread.pk}/").text
    button = re.search(r"<button[^>]*data-record[^>]*>(.*?)</button>", page, re.DOTALL)[1]
    assert button.startswith("<svg") and 'aria-hidden="true"' in button
    assert re.sub(r"<[^>]+>", "", button) == "Record"
