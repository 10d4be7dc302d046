"""The Ollama backend: an HTTP client with retries, error mapping and a cached probe."""

import contextlib
import itertools
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

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
)

if TYPE_CHECKING:
    import ollama


@dataclass(frozen=True)
class _Probe:
    at: float
    reachable: bool
    models: list[str]
    detail: str


_probe_lock = threading.Lock()  # guards _probes
_asking = threading.Lock()  # one probe of the server at a time
_probes: dict[str, _Probe] = {}


def probe(*, force: bool = False) -> _Probe:
    """What the Ollama server has, re-checked every LLM_RECHECK_SECONDS, not per call. One
    thread asks again; the others keep the last answer meanwhile, or wait for it when there is
    none yet: a class's answers arriving together ask the server once, not once each."""
    host = settings.OLLAMA_HOST
    with _probe_lock:
        cached = _probes.get(host)
    if not force and cached is not None and _fresh(cached):
        return cached
    if not _asking.acquire(blocking=force or cached is None):
        return cached
    try:
        with _probe_lock:
            latest = _probes.get(host)
        if not force and latest is not None and latest is not cached and _fresh(latest):
            return latest  # asked by the thread this one waited for
        try:
            models = OllamaBackend().pulled_models(retries=0)
            state = _Probe(time.monotonic(), True, models, "reachable")
        except (ModelUnavailable, ModelError) as error:
            state = _Probe(time.monotonic(), False, [], str(error))
        with _probe_lock:
            _probes[host] = state
        return state
    finally:
        _asking.release()


def _fresh(state: _Probe) -> bool:
    return time.monotonic() - state.at < settings.LLM_RECHECK_SECONDS


def has_model(pulled: list[str], wanted: str) -> bool:
    """Ollama lists `name:tag`; `embeddinggemma` means `embeddinggemma:latest`."""
    if ":" not in wanted:
        wanted += ":latest"
    return wanted in pulled


_clients: dict[tuple, "ollama.Client"] = {}
_dims: dict[tuple[str, str], int] = {}


def forget_servers() -> None:
    """Drop what was learnt per host: embedding sizes and reachability (tests: a fake server of
    another size or with other models may come back on a port an earlier one used)."""
    _dims.clear()
    with _probe_lock:
        _probes.clear()


class OllamaBackend:
    name = "ollama"

    def __init__(self) -> None:
        self.host = settings.OLLAMA_HOST
        key = (self.host, settings.OLLAMA_TIMEOUT, settings.OLLAMA_CONNECT_TIMEOUT)
        if key not in _clients:
            # The client (httpx and its command line's libraries) loads with the first backend,
            # not at start-up (docs/deployment.md#start-up-time).
            import httpx
            import ollama

            timeout = httpx.Timeout(
                settings.OLLAMA_TIMEOUT, connect=settings.OLLAMA_CONNECT_TIMEOUT
            )
            _clients[key] = ollama.Client(host=self.host, timeout=timeout)
        self.client = _clients[key]

    def info(self) -> BackendInfo:
        return BackendInfo(
            name=self.name,
            model=settings.LLM_MODEL,
            thinking=True,
            english_only=False,
            images=True,
            native_tools=True,
            faithful=True,
        )

    def readiness(self, model: str) -> dict:
        state = probe()
        if not state.reachable:
            return {"ready": False, "detail": state.detail}
        if not has_model(state.models, model):
            return {"ready": False, "detail": _not_pulled(model)}
        return {"ready": True, "detail": "ready"}

    def _retrying(self, call, retries: int | None = None):
        """Run `call`, retrying connection errors with exponential backoff."""
        import httpx

        retries = settings.OLLAMA_RETRIES if retries is None else retries
        for attempt in itertools.count():
            try:
                return call()
            except (ConnectionError, httpx.ConnectError, httpx.ConnectTimeout) as error:
                if attempt >= retries:
                    raise ModelUnavailable(
                        f"Ollama is not reachable at {self.host}: start it with `ollama serve`"
                    ) from error
                time.sleep(settings.OLLAMA_BACKOFF_SECONDS * 2**attempt)

    def pulled_models(self, retries: int | None = None) -> list[str]:
        with _mapped_errors(self.host, model=""):
            listing = self._retrying(self.client.list, retries)
        return sorted(entry.model for entry in listing.models if entry.model)

    def chat(self, messages, *, stream, think, json, tools, images, options):
        model = settings.LLM_MODEL
        if images:
            messages = _with_images(messages, images)
        request: dict[str, Any] = {
            "model": model,
            "messages": messages,
            "stream": stream,
            "options": options or None,
            "keep_alive": settings.OLLAMA_KEEP_ALIVE,
        }
        if think:
            request["think"] = True
        if json:
            request["format"] = json if isinstance(json, dict) else "json"
        if tools:
            request["tools"] = tools
        return self._chat_events(model, request)

    def _chat_events(self, model: str, request: dict) -> Iterator[ChatEvent]:
        with _mapped_errors(self.host, model):
            parts = self._retrying(lambda: self._first_part(request))
            for part in parts:
                message = part.message
                if message.thinking:
                    yield Thinking(message.thinking)
                if message.content:
                    yield Text(message.content)
                for call in message.tool_calls or []:
                    yield ToolCall(call.function.name, dict(call.function.arguments or {}))
                if part.done:
                    yield Done(
                        self.name,
                        part.model or model,
                        part.prompt_eval_count or 0,
                        part.eval_count or 0,
                    )
                    return
        raise ModelError("Ollama ended the answer without finishing it")

    def _first_part(self, request: dict) -> Iterator:
        """Open the stream and read its first part, so connection errors can be retried."""
        response = self.client.chat(**request)
        if not request["stream"]:
            return iter([response])
        first = next(response, None)
        return itertools.chain([] if first is None else [first], response)

    def embedding_name(self) -> str:
        return settings.EMBEDDING_MODEL

    def embedding_model(self) -> EmbeddingModel:
        key = (self.host, settings.EMBEDDING_MODEL)
        if key not in _dims:
            _dims[key] = self.embed(["dimension probe"]).shape[1]
        return EmbeddingModel(f"ollama/{settings.EMBEDDING_MODEL}", _dims[key])

    def embed(self, texts: list[str]) -> np.ndarray:
        model = settings.EMBEDDING_MODEL
        with _mapped_errors(self.host, model):
            response = self._retrying(
                lambda: self.client.embed(
                    model=model, input=texts, truncate=True, keep_alive=settings.OLLAMA_KEEP_ALIVE
                )
            )
        vectors = np.asarray(response.embeddings, dtype=np.float32)
        if vectors.ndim != 2 or len(vectors) != len(texts):
            raise ModelError(f"Ollama returned {len(vectors)} embeddings for {len(texts)} texts")
        return vectors


def _not_pulled(model: str) -> str:
    return f"model not pulled: run `ollama pull {model}`"


@contextlib.contextmanager
def _mapped_errors(host: str, model: str) -> Iterator[None]:
    """Turn the client's and httpx's exceptions into ModelUnavailable / ModelError."""
    try:
        yield
    except Exception as error:
        mapped = _mapped(error, host, model)
        if isinstance(mapped, ModelUnavailable):
            # `auto` should look again on the next call rather than trust a stale probe.
            with _probe_lock:
                _probes.pop(host, None)
        if mapped is error or mapped is None:
            raise
        raise mapped from error


def _mapped(error: Exception, host: str, model: str) -> Exception | None:
    import httpx
    import ollama

    if isinstance(error, ModelUnavailable | ModelError):
        return error
    if isinstance(error, ollama.ResponseError):
        if error.status_code == 404 or "not found" in str(error.error).lower():
            return ModelUnavailable(_not_pulled(model or "<model>"))
        return ModelError(f"Ollama: {error.error}")
    if isinstance(error, ConnectionError | httpx.ConnectError):
        return ModelUnavailable(f"Ollama is not reachable at {host}")
    if isinstance(error, httpx.TimeoutException):
        return ModelError(f"Ollama did not answer within {settings.OLLAMA_TIMEOUT:g} s")
    if isinstance(error, httpx.HTTPError | ValueError):
        # ValueError covers a malformed NDJSON line and pydantic's validation errors.
        return ModelError(f"Ollama sent a broken answer: {error}")
    return None


def _with_images(messages: list[dict], images: list[bytes]) -> list[dict]:
    messages = [dict(message) for message in messages]
    for message in reversed(messages):
        if message.get("role") == "user":
            message["images"] = [*message.get("images", []), *images]
            break
    return messages
