import socket

import pytest

from apps.llm.tests.fake_ollama import FakeOllama
from apps.vault import pipeline, tasks
from apps.vault.models import IngestRun
from apps.vault.uploads import store


@pytest.fixture
def model(settings):
    """The real Ollama backend of the gateway, talking to a fake Ollama on loopback."""
    server = FakeOllama().start()
    settings.OLLAMA_HOST = server.url
    settings.LLM_BACKEND = "ollama"
    settings.EMBEDDING_BACKEND = "ollama"
    settings.OLLAMA_BACKOFF_SECONDS = 0
    settings.OLLAMA_RETRIES = 0
    settings.EMBED_MAX_RETRIES = 2
    settings.EMBED_RETRY_SECONDS = 0
    yield server
    server.stop()


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def embedded_texts(server: FakeOllama) -> list[str]:
    """Every text the model was asked to embed, except the gateway's dimension probe."""
    return [
        text
        for path, body in server.requests
        if path == "/api/embed"
        for text in (body["input"] if isinstance(body["input"], list) else [body["input"]])
        if text != "dimension probe"
    ]


def upload(owner, path, **options):
    with open(path, "rb") as handle:
        return store(owner, path.name, iter(lambda: handle.read(65536), b""), **options).document


def ingest(owner, document_ids=None, *, django_capture_on_commit_callbacks) -> IngestRun:
    """Start a run and carry each step through the real Celery task, in this process."""
    with django_capture_on_commit_callbacks(execute=False):
        run = pipeline.start_run(owner, document_ids)
    return drive(run)


def drive(run: IngestRun) -> IngestRun:
    for name in IngestRun.STEPS:
        tasks.ingest_step.apply(args=(run.pk, name, run.attempt))
        run.refresh_from_db()
        if run.finished:
            break
    return run


@pytest.fixture
def run_ingestion(django_capture_on_commit_callbacks):
    def run(owner, document_ids=None) -> IngestRun:
        return ingest(
            owner,
            document_ids,
            django_capture_on_commit_callbacks=django_capture_on_commit_callbacks,
        )

    return run
