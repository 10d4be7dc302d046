import pytest

from apps.llm.tests.fake_ollama import FakeOllama


@pytest.fixture
def fake_ollama(settings):
    """The real Ollama backend, pointed at a scripted server on loopback."""
    yield from FakeOllama().serve(settings)
