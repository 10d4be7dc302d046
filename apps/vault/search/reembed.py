"""The re-embedding job: chunks of another model or of an older vector layout get new vectors in
the background (tasks.py runs it), while searching goes on."""

import logging
from collections.abc import Iterator

from django.db import transaction
from django.db.models.functions import Length

from apps.llm import gateway
from apps.vault.chunking import windows
from apps.vault.embedding import chunk_vectors
from apps.vault.models import Chunk
from apps.vault.search.models import IndexState
from apps.vault.search.store import BATCH, live_chunks

logger = logging.getLogger(__name__)


def outdated_chunks(model_name: str, batch_size: int = BATCH) -> Iterator[int]:
    """Ids of live chunks of this model whose vectors are not what `chunk_vectors` makes now."""
    dim = int(gateway.embedding_model().dim)
    after = 0
    while True:
        rows = list(
            live_chunks(model_name)
            .filter(id__gt=after)
            .annotate(size=Length("embedding"))
            .order_by("id")
            .values_list("id", "text", "size")[:batch_size]
        )
        if not rows:
            return
        for chunk_id, text, size in rows:
            if size != 4 * dim * (1 + len(windows(text))):
                yield chunk_id
        after = rows[-1][0]


def reembed_stale(batch_size: int = 64) -> int:
    """Re-embed every stale chunk with the configured model, batch by batch, then every chunk
    embedded with an older vector layout; returns how many.

    Idempotent: a chunk already embedded as `chunk_vectors` does now is never touched again.
    """
    model = gateway.embedding_model()
    done = 0
    stale = Chunk.objects.live().exclude(embedding_model=model.name).order_by("id")
    outdated = list(outdated_chunks(model.name))
    while True:
        batch = list(stale.values_list("id", "text")[:batch_size])
        if not batch and outdated:
            ids, outdated = outdated[:batch_size], outdated[batch_size:]
            batch = list(Chunk.objects.filter(id__in=ids).order_by("id").values_list("id", "text"))
        if not batch:
            return done
        vectors = chunk_vectors([text for _, text in batch])
        documents = Chunk.objects.filter(id__in=[i for i, _ in batch]).values_list(
            "document_id", flat=True
        )
        with transaction.atomic():
            for (chunk_id, _), vector in zip(batch, vectors, strict=True):
                Chunk.objects.filter(id=chunk_id).update(
                    embedding=vector.tobytes(), embedding_model=model.name
                )
            IndexState.bump(*documents)
        done += len(batch)


# Named, not imported: tasks.py imports this module to run the re-embedding.
REEMBED_TASK = "apps.vault.tasks.reembed_chunks"
