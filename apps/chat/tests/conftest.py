import threading
import uuid

import numpy as np
import pytest

from apps.chat import answering, tasks, transcriptions
from apps.chat.models import Thread
from apps.chat.tests.helpers import CHUNK_TEXT, app_layer
from apps.chat.tests.model_script import EMBEDDING, chat_script
from apps.llm.tests.fake_ollama import FakeOllama
from apps.vault.models import Chunk, Document
from tests.helpers.documents import make_document


@pytest.fixture
def chat_worker(settings, redis_url, monkeypatch):
    """Answers written as a chat worker writes them, behind a real Redis channel layer; only
    the queue is left out: `tasks.enqueue` runs the task's body in a thread of this process.
    Yields the threads (joined at the end, before the database is emptied)."""
    settings.CHANNEL_LAYERS = {"default": app_layer(redis_url, f"test-{uuid.uuid4().hex[:8]}")}
    threads: list[threading.Thread] = []

    def enqueue(answer_id: int) -> None:
        thread = threading.Thread(target=answering.write, args=(answer_id, "chat@test"))
        thread.start()
        threads.append(thread)

    monkeypatch.setattr(tasks, "enqueue", enqueue)
    yield threads
    for thread in threads:
        thread.join(timeout=30)


@pytest.fixture
def fake_model(settings, chat_worker):
    """The fake Ollama answering with the chat's script (think, search, answer), and a chat
    worker to write the answers."""
    server = FakeOllama(chat_script)
    server.embedding = EMBEDDING
    yield from server.serve(settings, OLLAMA_RETRIES=0)


@pytest.fixture
def cell_notes(alice) -> Document:
    """One ingested document of alice's with one chunk the keyword search finds."""
    document = make_document(alice, "cells.pdf", status=Document.Status.DONE, pages=3)
    Chunk.objects.create(
        document=document,
        document_sha256=document.sha256,
        ordinal=0,
        text=CHUNK_TEXT,
        page=2,
        embedding=np.array(EMBEDDING, dtype=np.float32).tobytes(),
        embedding_model="ollama/embeddinggemma",
    )
    return document


@pytest.fixture
def alice_thread(alice) -> Thread:
    return Thread.objects.create(owner=alice)


@pytest.fixture
def transcription_worker(monkeypatch):
    """Recordings transcribed as the jobs worker transcribes them (decoded in the reading
    sandbox); only the queue is left out: `tasks.enqueue_transcription` runs the task's body in
    a thread of this process. Yields the threads (joined at the end)."""
    threads: list[threading.Thread] = []

    def enqueue(transcription_id: int) -> None:
        thread = threading.Thread(
            target=transcriptions.transcribe, args=(transcription_id, "jobs@test")
        )
        thread.start()
        threads.append(thread)

    monkeypatch.setattr(tasks, "enqueue_transcription", enqueue)
    yield threads
    for thread in threads:
        thread.join(timeout=60)


@pytest.fixture
def fake_whisper(monkeypatch):
    """Speech-to-text on, and Whisper replaced by words that say what it was given (the real
    model runs in the `embedded` tests). Yields the sample counts it was given."""
    heard: list[int] = []

    def transcribe(samples, on_progress=None):
        heard.append(len(samples))
        for share in (0.5, 1.0):
            if on_progress is not None:
                on_progress(share)
        return f"{len(samples) / 16000:.1f} seconds of speech"

    monkeypatch.setattr("apps.llm.gateway.speech_available", lambda: True)
    monkeypatch.setattr("apps.llm.gateway.transcribe", transcribe)
    return heard
