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
retry, a Markdown lesson): ``retrieve``, ``context_block``, ``ask``, ``parse_items`` and
``validate_items``.

Errors, all ``GenerationError`` with a message fit for the page:
``EmptyScope`` (nothing to build from), ``ModelDown`` (the model is unavailable or failed),
``NothingValid`` (the answer held no valid item).
"""

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from django.db.models import F
from pydantic import BaseModel, ValidationError

from apps.llm import gateway, jsonparse, prompts
from apps.study.errors import EmptyScope, ModelDown, NothingValid
from apps.vault.errors import ScopeError
from apps.vault.models import Chunk, Document
from apps.vault.scope import WHOLE_VAULT, Scope  # the scope every generator takes
from apps.vault.search.query import search as search_chunks

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)

MAX_CHUNKS = 15
# A broad query: we want the backbone of the material, not an answer to one question.
DEFAULT_QUERY = "key concepts, definitions, important facts, main ideas"
# Low but not zero: the same scope twice may give a slightly different quiz.
TEMPERATURE = 0.2
# Keep the prompt within a small model's context window.
MAX_EXCERPT_CHARS = 1200


@dataclass(frozen=True)
class Source:
    """One excerpt the model was shown."""

    chunk_id: int
    document_id: int
    filename: str
    page: int | None
    section: str
    text: str


@dataclass(frozen=True)
class Item(Generic[M]):
    value: M
    chunk_ids: list[int]


@dataclass
class Result(Generic[M]):
    items: list[Item[M]]
    sources: list[Source]
    backend: str = ""
    model: str = ""
    received: int = 0  # items in the answer before validation
    chunk_ids: list[int] = field(init=False)

    def __post_init__(self) -> None:
        self.chunk_ids = [source.chunk_id for source in self.sources]


@dataclass(frozen=True)
class Answer:
    text: str
    backend: str
    model: str


# --- Retrieve -------------------------------------------------------------------------------


def live_chunks(user, scope: Scope):
    """Chunks of the current version of every document in scope that `user` may see."""
    return Chunk.objects.filter(
        document__in=scope.documents(user), document_sha256=F("document__sha256")
    )


def check_scope(user, scope: Scope):
    """The live chunks of the scope, or EmptyScope saying why there are none. No model call:
    a generation is refused with this before it is queued."""
    try:
        documents = scope.documents(user)
    except ScopeError as error:
        raise EmptyScope(
            f"{error} The chosen scope has no documents you can use; pick others."
        ) from error
    chunks = live_chunks(user, scope)
    if not chunks.exists():
        if not documents.exists():
            raise EmptyScope(
                "There are no documents to build this from. Add documents to your Knowledge "
                "Base first."
                if scope.is_whole_vault
                else "The chosen scope has no documents. Pick other categories or documents."
            )
        failed = documents.filter(status=Document.Status.FAILED)
        if len(failed) == documents.count():  # waiting would not help
            names = "; ".join(
                f"{document.filename} ({document.error.rstrip('.')})"
                if document.error
                else document.filename
                for document in failed
            )
            raise EmptyScope(
                f"The documents in this scope could not be read: {names}. Pick other documents."
            )
        raise EmptyScope(
            "The documents in this scope have no text yet: wait until they are processed, "
            "or pick other documents."
        )
    return chunks


def retrieve(
    user, scope: Scope, *, query: str = DEFAULT_QUERY, limit: int = MAX_CHUNKS
) -> list[Source]:
    """Up to `limit` representative chunks, spread across the scope's documents.

    Hybrid search ranks the candidates; the documents then take turns, so one long file
    cannot crowd out the others. When search finds too few, chunks spaced evenly through
    each document fill the rest.
    """
    chunks = check_scope(user, scope)
    ranked = _search(user, scope, query, limit)
    picked = _take_turns(ranked, limit)
    if len(picked) < limit:
        taken = {source.chunk_id for source in picked}
        spread = [
            source for source in _evenly_spaced(chunks, limit) if source.chunk_id not in taken
        ]
        picked += _take_turns(spread, limit - len(picked))
    return picked


def _search(user, scope: Scope, query: str, limit: int) -> list[Source]:
    try:
        hits = search_chunks(user, query, k=limit * 3, scope=scope)
    except (gateway.ModelUnavailable, gateway.ModelError) as error:
        # The even spread below still gives the model material; the chat call will say
        # clearly if the model is really down.
        log.warning("search for study material failed, spreading chunks instead: %s", error)
        return []
    return [
        Source(hit.chunk_id, hit.document_id, hit.filename, hit.page, hit.section or "", hit.text)
        for hit in hits
    ]


def _evenly_spaced(chunks, limit: int) -> list[Source]:
    """Per document, `limit` chunks at even steps from first to last, in document order."""
    sources: list[Source] = []
    rows = chunks.order_by("document_id", "ordinal").values_list(
        "pk", "document_id", "document__filename", "page", "section", "ordinal"
    )
    by_document: dict[int, list[tuple]] = {}
    for row in rows:
        by_document.setdefault(row[1], []).append(row)
    texts = dict(chunks.values_list("pk", "text"))
    for rows_of_document in by_document.values():
        step = max(1, len(rows_of_document) / limit)
        seen: set[int] = set()
        for i in range(min(limit, len(rows_of_document))):
            pk, document_id, filename, page, section, _ordinal = rows_of_document[int(i * step)]
            if pk not in seen:
                seen.add(pk)
                sources.append(Source(pk, document_id, filename, page, section, texts[pk]))
    return sources


def _take_turns(sources: Iterable[Source], limit: int) -> list[Source]:
    """Round-robin over documents, keeping each document's own order."""
    queues: dict[int, list[Source]] = {}
    for source in sources:
        queues.setdefault(source.document_id, []).append(source)
    picked: list[Source] = []
    while len(picked) < limit and any(queues.values()):
        for queue in queues.values():
            if queue and len(picked) < limit:
                picked.append(queue.pop(0))
    return picked


def context_block(sources: Sequence[Source]) -> str:
    """The excerpts as the prompt shows them: numbered, with where each comes from."""
    parts = []
    for number, source in enumerate(sources, start=1):
        where = source.filename
        if source.page:
            where += f", page {source.page}"
        if source.section:
            where += f", {source.section}"
        text = source.text.strip()[:MAX_EXCERPT_CHARS]
        parts.append(f"[{number}] ({where})\n{text}")
    return "\n\n".join(parts)


# --- Generate -------------------------------------------------------------------------------


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


# --- Parse and validate -----------------------------------------------------------------------


def parse_items(
    text: str,
    *,
    key: str,
    schema: type[M],
    count: int,
    sources: Sequence[Source] = (),
    identity: Callable[[M], Any] | None = None,
    context: dict | None = None,
) -> tuple[list[Item[M]], int]:
    """Valid items from model text (never raises), trimmed to `count`, and how many came.

    Accepts an object holding the list under `key` or a bare array, fenced or not, with
    prose around it and trailing commas; anything else yields no items.
    """
    raw_items = jsonparse.find_list(jsonparse.extract_json(text), key)
    kept = validate_items(
        raw_items,
        schema=schema,
        count=count,
        sources=sources,
        identity=identity,
        context=context,
    )
    return kept, len(raw_items)


def validate_items(
    raw_items: Iterable[Any],
    *,
    schema: type[M],
    count: int,
    sources: Sequence[Source] = (),
    identity: Callable[[M], Any] | None = None,
    context: dict | None = None,
) -> list[Item[M]]:
    """Each already-parsed item checked with `schema`; bad and repeated ones are dropped."""
    all_chunk_ids = [source.chunk_id for source in sources]
    kept: list[Item[M]] = []
    seen: set = set()
    for raw in raw_items:
        if len(kept) >= count:
            break
        if not isinstance(raw, dict):
            continue
        chunk_ids = _cited_chunks(raw.get("source", raw.get("sources")), sources) or all_chunk_ids
        try:
            value = schema.model_validate(raw, context=context)
        except ValidationError:  # validators raising ValueError arrive as this too
            continue
        if identity is not None:
            marker = identity(value)
            if marker in seen:
                continue
            seen.add(marker)
        kept.append(Item(value, chunk_ids))
    return kept


def _cited_chunks(cited: Any, sources: Sequence[Source]) -> list[int]:
    numbers = cited if isinstance(cited, list) else [cited]
    chunk_ids = []
    for number in numbers:
        if isinstance(number, int) and not isinstance(number, bool) and 1 <= number <= len(sources):
            chunk_id = sources[number - 1].chunk_id
            if chunk_id not in chunk_ids:
                chunk_ids.append(chunk_id)
    return chunk_ids


# --- The whole recipe -------------------------------------------------------------------------


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
    return Result(items, list(sources), answer.backend, answer.model, received)
