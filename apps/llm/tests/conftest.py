import pytest

from apps.llm.tests.fake_ollama import FakeOllama


@pytest.fixture
def fake_ollama(settings):
    """The real Ollama backend, pointed at a scripted server on loopback."""
    server = FakeOllama().start()
    settings.OLLAMA_HOST = server.url
    settings.LLM_BACKEND = "ollama"
    settings.EMBEDDING_BACKEND = "ollama"
    settings.OLLAMA_BACKOFF_SECONDS = 0
    yield server
    server.stop()
