"""The one module that talks to a model: chat, embed, transcribe, health.

Two backends: Ollama (the good answers) and an embedded one that runs in-process on the
CPU from PyPI packages, so a fresh machine without Ollama or internet still works; each
lives in `apps/llm/backends/`, and this module chooses between them. Nothing here ever
downloads a model.
"""

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from django.conf import settings

from apps.llm.backends import (
    BackendInfo,
    ChatEvent,
    Done,
    EmbeddingModel,
    ModelError,
    ModelUnavailable,
    Text,
    Thinking,
    ToolCall,
    speech,
)
from apps.llm.backends import ollama as ollama_backend
from apps.llm.backends.embedded import EmbeddedBackend, threads
from apps.llm.backends.ollama import OllamaBackend, has_model
from apps.llm.backends.speech import SPEECH_MODEL

__all__ = [
    "ChatEvent",
    "Done",
    "EmbeddingModel",
    "ModelError",
    "ModelUnavailable",
    "Text",
    "Thinking",
    "ToolCall",
    "chat",
    "complete",
    "current_backend",
    "embed",
    "embedding_model",
    "health",
    "speech_available",
    "threads",
    "transcribe",
]

# --- Public interface -------------------------------------------------------------------------


def chat(
    messages: Sequence[dict],
    *,
    stream: bool = True,
    think: bool = False,
    json: bool | dict = False,
    tools: Sequence[dict] | None = None,
    images: Sequence[bytes] | None = None,
    options: dict | None = None,
) -> Iterator[ChatEvent]:
    """Answer `messages` (Ollama-style dicts) as a stream of events ending in `Done`.

    `json` is True for any JSON object or a JSON-schema dict; `tools` are Ollama/OpenAI
    function specs; `images` (raw bytes) go with the last user message.
    """
    backend = _chat_backend()
    return backend.chat(
        list(messages),
        stream=stream,
        think=think,
        json=json,
        tools=list(tools or []),
        images=list(images or []),
        options=dict(options or {}),
    )


def complete(messages: Sequence[dict], **kwargs: Any) -> str:
    """The whole answer text of a chat call, for generators that parse it afterwards."""
    kwargs.setdefault("stream", False)
    return "".join(event.text for event in chat(messages, **kwargs) if isinstance(event, Text))


def embed(texts: list[str]) -> np.ndarray:
    """L2-normalised float32 vectors, shape (len(texts), dim), computed in batches."""
    backend = _embedding_backend()
    if not texts:
        return np.zeros((0, backend.embedding_model().dim), dtype=np.float32)
    size = max(1, settings.EMBEDDING_BATCH_SIZE)
    parts = [backend.embed(list(texts[i : i + size])) for i in range(0, len(texts), size)]
    vectors = np.vstack(parts).astype(np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


def embedding_model() -> EmbeddingModel:
    """The model `embed` uses now; the index stores it and re-embeds when it changes."""
    return _embedding_backend().embedding_model()


def transcribe(samples: np.ndarray, on_progress: Callable[[float], None] | None = None) -> str:
    """Speech to text with faster-whisper on the CPU, from 16 kHz mono float samples (a
    recording is decoded in the reading sandbox, apps/vault/readers/audio.py)."""
    return speech.transcribe(samples, on_progress)


def speech_available() -> bool:
    return settings.SPEECH_ENABLED and speech.problem() == ""


def current_backend() -> BackendInfo:
    return _chat_backend().info()


def health(*, fresh: bool = True) -> dict:
    """Backend in use, model names and readiness of chat, embeddings and speech; `fresh=False`
    takes the Ollama server's last answer within LLM_RECHECK_SECONDS instead of asking again."""
    ollama_state = ollama_backend.probe(force=fresh)
    chat_backend = _chat_backend()
    embedding_backend = _embedding_backend()
    speech_problem = speech.problem() if settings.SPEECH_ENABLED else "disabled (SPEECH_ENABLED)"
    info = chat_backend.info()
    return {
        "chat": {
            "backend": chat_backend.name,
            "model": info.model,
            "limits": info.limits,
            **chat_backend.readiness(info.model),
        },
        "embeddings": {
            "backend": embedding_backend.name,
            "model": embedding_backend.embedding_name(),
            **embedding_backend.readiness(embedding_backend.embedding_name()),
        },
        "speech": {
            "backend": "faster-whisper",
            "model": SPEECH_MODEL,
            "ready": speech_problem == "",
            "detail": speech_problem or "ready",
        },
        "ollama": {
            "host": settings.OLLAMA_HOST,
            "reachable": ollama_state.reachable,
            "models": ollama_state.models,
            "detail": ollama_state.detail,
        },
        "settings": {
            "LLM_BACKEND": settings.LLM_BACKEND,
            "EMBEDDING_BACKEND": settings.EMBEDDING_BACKEND,
        },
    }


# --- Choosing a backend -----------------------------------------------------------------------


def _choose(setting: str, model: str) -> OllamaBackend | EmbeddedBackend:
    if setting == "ollama":
        return OllamaBackend()
    if setting == "embedded":
        return EmbeddedBackend()
    state = ollama_backend.probe()
    if state.reachable and has_model(state.models, model):
        return OllamaBackend()
    return EmbeddedBackend()


def _chat_backend() -> OllamaBackend | EmbeddedBackend:
    return _choose(settings.LLM_BACKEND, settings.LLM_MODEL)


def _embedding_backend() -> OllamaBackend | EmbeddedBackend:
    return _choose(settings.EMBEDDING_BACKEND, settings.EMBEDDING_MODEL)
