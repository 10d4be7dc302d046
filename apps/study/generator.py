"""The recipe every Study Hub generator shares (see docs/study-hub.md): retrieve, prompt,
generate, parse, validate, and hand back items that remember the chunks they were built from.

Use it like this (the caller persists what comes back)::

    from pydantic import BaseModel
    from apps.study import generator

    class Card(BaseModel):
        front: str
        back: str

    result = generator.generate_items(
        user,
        template="flashcards",            # apps/<app>/prompts/flashcards.md, or a custom copy
        schema=Card,                      # each item is validated with it; bad ones are dropped
        count=20,                         # asked for EXACTLY this many, extras are trimmed
        key="cards",                      # {"cards": [...]} or a bare array are both accepted
        scope=generator.Scope(category_ids=[3], document_ids=[]),
        values={"difficulty": "beginner"},  # extra {{ placeholders }} for the template
        identity=lambda card: card.front,   # optional: drop items that repeat an earlier one
        context=None,                       # optional: passed to schema.model_validate
    )
    result.items        # list[Item]: item.value (a Card), item.chunk_ids (its sources)
    result.chunk_ids    # every chunk the prompt showed the model
    result.backend, result.model

Every template receives ``{{ count }}`` and ``{{ context }}`` (the excerpts, numbered
``[1]`` … ``[15]``). If an item carries ``"source": <n>`` (or a list of numbers), its
``chunk_ids`` are those excerpts' chunks; otherwise all of the prompt's chunks.

The building blocks are public for modes that need more control (a workshop outline with a
retry, a Markdown lesson): ``retrieval.retrieve`` and ``retrieval.context_block``
(apps/study/retrieval.py), ``ask`` here, ``parsing.parse_items`` and ``parsing.validate_items``
(apps/study/parsing.py).

Errors, all ``GenerationError`` with a message fit for the page:
``EmptyScope`` (nothing to build from), ``ModelDown`` (the model is unavailable or failed),
``NothingValid`` (the answer held no valid item).
"""

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from apps.llm import gateway, prompts
from apps.study.errors import EmptyScope, ModelDown, NothingValid
from apps.study.parsing import Item, parse_items
from apps.study.retrieval import DEFAULT_QUERY, Source, context_block, retrieve
from apps.vault.scope import WHOLE_VAULT, Scope  # the scope every generator takes

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)

# Low but not zero: the same scope twice may give a slightly different quiz.
TEMPERATURE = 0.2


@dataclass
class Result(Generic[M]):
    items: list[Item[M]]
    sources: list[Source]
    backend: str = ""
    model: str = ""
    chunk_ids: list[int] = field(init=False)

    def __post_init__(self) -> None:
        self.chunk_ids = [source.chunk_id for source in self.sources]


@dataclass(frozen=True)
class Answer:
    text: str
    backend: str
    model: str


def ask(prompt: str, *, json: bool | dict = True, temperature: float = TEMPERATURE) -> Answer:
    """One model call with the prompt as the user message; the whole answer text."""
    messages = [{"role": "user", "content": prompt}]
    parts: list[str] = []
    backend = model = ""
    try:
        for event in gateway.chat(
            messages, stream=True, json=json, options={"temperature": temperature}
        ):
            if isinstance(event, gateway.Text):
                parts.append(event.text)
            elif isinstance(event, gateway.Done):
                backend, model = event.backend, event.model
    except gateway.ModelUnavailable as error:
        raise ModelDown(f"The language model is not available: {error}") from error
    except gateway.ModelError as error:
        raise ModelDown(f"The language model failed: {error}") from error
    return Answer("".join(parts), backend, model)


def copies_example(value: BaseModel, example: str) -> bool:
    """True for an item lifted word for word from the prompt's example, not the material."""
    texts = [text for text in value.model_dump().values() if isinstance(text, str)]
    return any(len(text) >= 12 and text in example for text in texts)


def answer_schema(key: str, schema: type[BaseModel], count: int) -> dict:
    """The JSON schema of the whole answer, `{key: [item, ...]}` with a `source` per item.

    Ollama and llama.cpp constrain their output to it, so even the tiny embedded model answers
    in the right shape; the validators still judge every item.
    """
    item = schema.model_json_schema()
    item["properties"]["source"] = {"type": "integer"}
    item["required"] = [*item.get("required", []), "source"]
    answer = {"type": "array", "items": item, "minItems": 1, "maxItems": count}
    return {"type": "object", "properties": {key: answer}, "required": [key]}


# Study material cut from the documents (apps/study/extractive), by no model: what the
# embedded model's answers are replaced with, and what fills an Ollama answer's shortfall.
EXTRACTIVE = "extractive"
METHODS = ("model", EXTRACTIVE)


def choose_method(asked: str | None = None) -> str:
    """The generator to use: the one asked for, else the extractive one when the embedded
    model would answer (it is too small to write study material), else the model."""
    if asked in METHODS:
        return asked
    return "model" if gateway.current_backend().faithful else EXTRACTIVE


def generate_items(
    user,
    *,
    template: str,
    schema: type[M],
    count: int,
    key: str,
    scope: Scope = WHOLE_VAULT,
    values: dict[str, object] | None = None,
    query: str = DEFAULT_QUERY,
    sources: Sequence[Source] | None = None,
    identity: Callable[[M], Any] | None = None,
    context: dict | None = None,
) -> Result[M]:
    """Retrieve (unless `sources` are given), prompt, generate, parse and validate."""
    if sources is None:
        sources = retrieve(user, scope, query=query)
    if not sources:
        raise EmptyScope("There is nothing in this scope to build from.")
    prompt = prompts.render(
        template, **{**(values or {}), "count": count, "context": context_block(sources)}
    )
    answer = ask(prompt, json=answer_schema(key, schema, count))
    items, received = parse_items(
        answer.text,
        key=key,
        schema=schema,
        count=count,
        sources=sources,
        identity=identity,
        context=context,
    )
    # A small model likes to hand back the prompt's own example instead of using the material.
    example = prompts.render(template, **{**(values or {}), "count": count, "context": ""})
    items = [item for item in items if not copies_example(item.value, example)]
    if not items:
        log.warning(
            "%s: no valid item in %d received; answer began %r",
            template,
            received,
            answer.text[:200],
        )
        raise NothingValid(
            "The model's answer held nothing usable. Try again, or pick a narrower scope."
        )
    return Result(items, list(sources), answer.backend, answer.model)
