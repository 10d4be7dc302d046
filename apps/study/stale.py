"""Study items whose source changed: re-ingesting a changed file retires its chunks, and every
question, card, lesson and mindmap node keeps the chunk it came from, so it can tell. Each shows
"source changed" with the passage that now answers it (hybrid search for the item's own text
within its scope), and one action refreshes only those items: one whose text is still in the new
passage just points there; otherwise it is cut again from the new passage (extractive), or, for a
lesson the model wrote, written again when it is next opened. Reviews, attempts and scores stay.

What is stale and how it is refreshed is each feature's own (its `stale.py`, declared on its
kind); this module holds what they share.
"""

from collections.abc import Iterable
from typing import TypeVar

from django.db.models import F

from apps.llm import gateway
from apps.study import generator, kinds, retrieval
from apps.vault.errors import ScopeError
from apps.vault.models import Chunk
from apps.vault.search.query import search as search_chunks

K = TypeVar("K")


def current(chunk_ids: Iterable[int]):
    """Those of the chunks that still belong to their document's current version."""
    ids = {pk for pk in chunk_ids if isinstance(pk, int)}  # many items cite the same chunks
    return Chunk.objects.filter(pk__in=ids, document_sha256=F("document__sha256"))


def live(chunk_ids: Iterable[int]) -> set[int]:
    return set(current(chunk_ids).values_list("pk", flat=True))


def cites_retired(chunk_ids: list[int], alive: set[int]) -> bool:
    return bool(chunk_ids) and not set(chunk_ids) <= alive


def counts(user) -> dict[str, int]:
    """How many of the user's parts of each kind ({"questions": 2, ...}) cite a retired chunk,
    and their total, for the Study Hub (one query for every kind's chunks)."""
    cited = {kind.parts: kind.cited(user) for kind in kinds.citing()}
    alive = live(pk for parts in cited.values() for ids in parts for pk in ids)
    stale = {name: sum(cites_retired(ids, alive) for ids in parts) for name, parts in cited.items()}
    return {**stale, "total": sum(stale.values())}


# --- The passage that answers it now ------------------------------------------------------------


def says(text: str, said: str) -> bool:
    """`said` is in `text` word for word, whatever the line breaks between its words (a card's
    back is on one line; the PDF it was cut from wrapped it)."""
    return " ".join(said.split()) in " ".join(text.split())


def scope_for(made) -> generator.Scope:
    """The scope a quiz, deck, workshop or mindmap was made from (its `scope`, or its chosen
    `category_ids` and `document_ids`), or the whole vault when a chosen document or category
    is gone."""
    asked = getattr(made, "scope", None)
    if not isinstance(asked, dict):
        asked = {"category_ids": made.category_ids, "document_ids": made.document_ids}
    chosen = generator.Scope(
        category_ids=asked.get("category_ids", []), document_ids=asked.get("document_ids", [])
    )
    try:
        chosen.documents(made.owner)
    except ScopeError:
        return generator.WHOLE_VAULT
    return chosen


def replacement(user, text: str, scope: generator.Scope) -> retrieval.Source | None:
    """The live passage that best answers `text` now (None when search finds nothing)."""
    found = candidates(user, text, scope, k=1)
    return found[0] if found else None


def candidates(user, text: str, scope: generator.Scope, k: int = 3) -> list[retrieval.Source]:
    """The live passages that best answer `text` now, best first (to cut a new item from)."""
    try:
        hits = search_chunks(user, text[:1000], k=k, scope=scope)
    except (gateway.ModelUnavailable, gateway.ModelError, ScopeError):
        return []
    return retrieval.hit_sources(hits)


def passages_now(made, texts: dict[K, str]) -> dict[K, retrieval.Source | None]:
    """{key: the live passage that best answers the item's text now} for {key: its text}: what
    every page shows beside a stale item of `made` (searched within its scope)."""
    scope = scope_for(made)
    return {key: replacement(made.owner, text, scope) for key, text in texts.items()}
