"""The query path chat, study and the API call: the k best chunks for a question among the
documents a user may see, in scope."""

import logging
from dataclasses import dataclass

import numpy as np
from django.conf import settings

from apps.llm import gateway
from apps.vault.models import Chunk
from apps.vault.scope import WHOLE_VAULT, Scope
from apps.vault.search.live import current

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Hit:
    chunk_id: int
    document_id: int
    filename: str
    page: int | None
    section: str
    text: str
    score: float
    dense_rank: int | None
    sparse_rank: int | None


def chunk_texts(chunk_ids: list[int]) -> list[str]:
    """The texts of these chunks (the feedback reads the first top ones); gone ones are left out."""
    found = dict(Chunk.objects.filter(id__in=chunk_ids).values_list("id", "text"))
    return [found[chunk_id] for chunk_id in chunk_ids if chunk_id in found]


def search(
    user,
    query: str,
    *,
    k: int = 7,
    scope: Scope = WHOLE_VAULT,
) -> list[Hit]:
    """The k best chunks for the query among the documents the user may see, in scope.
    Raises ScopeError for a scope naming what the user cannot see."""
    query = query.strip()
    if not query:
        return []
    allowed = np.fromiter(scope.searchable(user).values_list("id", flat=True), np.int64)
    if not len(allowed):
        return []
    snapshot = current()
    vector = None
    if len(snapshot):
        try:
            vector = gateway.embed([query])[0]
        except Exception:  # the model being away costs the dense half, not the search
            logger.warning("Query embedding failed; keyword results only.", exc_info=True)
    ranked = snapshot.search(
        query, vector, allowed, k, settings.RETRIEVAL_MIN_SIMILARITY, texts=chunk_texts
    )
    chunks = Chunk.objects.select_related("document").in_bulk([r.chunk_id for r in ranked])
    return [
        Hit(
            chunk_id=r.chunk_id,
            document_id=chunk.document_id,
            filename=chunk.document.filename,
            page=chunk.page,
            section=chunk.section,
            text=chunk.text,
            score=r.score,
            dense_rank=r.dense_rank,
            sparse_rank=r.sparse_rank,
        )
        for r in ranked
        if (chunk := chunks.get(r.chunk_id)) is not None
    ]
