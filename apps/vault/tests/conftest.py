import pytest

from apps.llm.tests.fake_ollama import FakeOllama
from apps.vault.models import IngestRun
from apps.vault.tests.helpers import ingest


@pytest.fixture
def model(settings):
    """The real Ollama backend of the gateway, talking to a fake Ollama on loopback."""
    yield from FakeOllama().serve(
        settings, OLLAMA_RETRIES=0, EMBED_MAX_RETRIES=2, EMBED_RETRY_SECONDS=0
    )


@pytest.fixture
def run_ingestion(django_capture_on_commit_callbacks):
    def run(owner, document_ids=None) -> IngestRun:
        return ingest(
            owner,
            document_ids,
            django_capture_on_commit_callbacks=django_capture_on_commit_callbacks,
        )

    return run


@pytest.fixture
def no_broker(django_capture_on_commit_callbacks, monkeypatch):
    """Runs are created; their Celery chain is tested elsewhere, so nothing is sent. Returns
    what would have been sent."""
    sent = []
    monkeypatch.setattr("apps.vault.ingestion.enqueue", lambda *args: sent.append(args))
    return sent
