"""The whole chat on the embedded model, offline: too small to answer faithfully, so the
question is looked up and the answer quotes the passages, with its sources."""

import pytest

from apps.chat import agent
from apps.chat.models import Message, Thread
from apps.vault.models import Document
from apps.vault.tests.chunks import add_chunks
from tests.helpers.documents import make_document

# Transactional: the agent closes its connection while the model streams, as in production.
pytestmark = [
    pytest.mark.embedded,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def test_the_embedded_model_answers_with_quotes_from_a_search_of_the_question(alice, settings):
    settings.LLM_BACKEND = settings.EMBEDDING_BACKEND = "embedded"
    notes = make_document(alice, "cells.pdf", status=Document.Status.DONE)
    add_chunks(notes, ["Mitochondria make ATP, the energy currency of the cell, from glucose."])
    answer = Thread.objects.create(owner=alice).ask("What do mitochondria make?", {}, "")

    events = [event.type for event in agent.answer(answer.pk)]

    assert "sources" in events and "text" in events
    assert events.index("sources") < events.index("text")
    answer.refresh_from_db()
    assert answer.status == Message.Status.DONE
    assert [c["filename"] for c in answer.citations] == ["cells.pdf"]
    assert answer.backend == "embedded" and answer.model == "extractive"
    assert "> Mitochondria make ATP, the energy currency of the cell, from glucose. [1]" in (
        answer.content
    )
