"""Retrieve: the excerpts a study generator shows the model (the first step of the generation
recipe, docs/study-hub.md), spread across the scope's documents, and how the prompt numbers them."""

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db.models import F

from apps.llm import gateway
from apps.study.errors import EmptyScope, ScopeNotFound
from apps.vault.errors import ScopeError
from apps.vault.models import Chunk, Document
from apps.vault.scope import Scope
from apps.vault.search.query import search as search_chunks

log = logging.getLogger(__name__)

MAX_CHUNKS = 15
# A broad query: we want the backbone of the material, not an answer to one question.
DEFAULT_QUERY = "key concepts, definitions, important facts, main ideas"
# Low but not zero: the same scope twice may give a slightly different quiz.
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
        raise ScopeNotFound(
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
    return hit_sources(hits)


def hit_sources(hits) -> list[Source]:
    """Search hits as excerpts, in their order."""
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
