"""What every backend produces: the events of a chat, the two errors, backend facts.

`apps.llm.gateway` re-exports all of these; callers import them from there.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Thinking:
    text: str


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict


@dataclass(frozen=True)
class Done:
    backend: str
    model: str
    prompt_tokens: int
    completion_tokens: int


ChatEvent = Thinking | Text | ToolCall | Done


class ModelUnavailable(Exception):
    """The model cannot be reached or is not installed; the message says what to do."""


class ModelError(Exception):
    """The model was there but the call failed (timeout, broken stream, bad request)."""


@dataclass(frozen=True)
class EmbeddingModel:
    name: str
    dim: int


@dataclass(frozen=True)
class BackendInfo:
    """Which backend and model answer chats, and what they can do, for the UI."""

    name: str  # "ollama" | "embedded"
    model: str
    thinking: bool
    english_only: bool
    images: bool
    native_tools: bool
    # False for a model too small to answer from sources without inventing (SmolLM2-135M):
    # chat then quotes the documents and the Study Hub cuts its material from them instead.
    faithful: bool

    @property
    def limits(self) -> list[str]:
        notes = []
        if not self.thinking:
            notes.append("no thinking mode")
        if self.english_only:
            notes.append("English only")
        if not self.images:
            notes.append("no images")
        if not self.faithful:
            notes.append("answers quoted from your documents, not written")
        return notes
