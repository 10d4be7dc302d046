"""Parse and validate: the items a model's answer holds, each checked on its own and tied to
the excerpts it cites (steps 4 and 5 of the generation recipe, docs/study-hub.md)."""

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from apps.llm import jsonparse
from apps.study.retrieval import Source

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Item(Generic[M]):
    value: M
    chunk_ids: list[int]


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
