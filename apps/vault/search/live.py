"""This process's snapshot, brought up to date with the database's live chunks when they change
(incrementally, one writer at a time) and saved for the other processes."""

import logging
import threading

import numpy as np
from django.db.models.functions import Length

from apps.llm import gateway
from apps.vault.chunking import windows
from apps.vault.models import Chunk
from apps.vault.search.reembed import request_reembed
from apps.vault.search.snapshot import Snapshot
from apps.vault.search.store import (
    BATCH,
    current_generation,
    index_dir,
    live_chunks,
    load,
    save,
    writer_lock,
)

logger = logging.getLogger(__name__)

_snapshot: Snapshot | None = None
_refresh_lock = threading.Lock()


def current() -> Snapshot:
    """This process's snapshot, brought up to date with the database if it moved on."""
    global _snapshot
    model = gateway.embedding_model()
    generation = current_generation(model.name)
    # The directory is part of the key: a new DATA_DIR (a test, a restore) is a new vault.
    key = (index_dir(), generation, model.name)
    snapshot = _snapshot
    if snapshot is not None and snapshot.key == key:
        return snapshot
    with _refresh_lock:
        snapshot = _snapshot
        if snapshot is None or snapshot.key != key:
            same_vault = snapshot if snapshot is not None and snapshot.key[0] == key[0] else None
            snapshot, switched = _refresh(same_vault, generation, model.name, int(model.dim))
            snapshot.key = key
            _snapshot = snapshot
            if switched:
                request_reembed()
    return snapshot


def forget() -> None:
    """Drop this process's snapshot (tests; a new DATA_DIR)."""
    global _snapshot
    _snapshot = None


def _refresh(
    snapshot: Snapshot | None, generation: int, model: str, dim: int
) -> tuple[Snapshot, bool]:
    """Load the saved snapshot or bring one up to date; True when chunks need re-embedding
    (the model changed, or chunks were embedded with an older vector layout)."""
    directory = index_dir()
    with writer_lock(directory):
        stored = load(directory)
        candidates = [s for s in (stored, snapshot) if s is not None]
        matching = [s for s in candidates if (s.model, s.dim) == (model, dim)]
        switched = bool(candidates) and not matching
        # The saved file is the newest any process wrote; this process's copy is the fallback.
        base = matching[0] if matching else None
        if base is not None and base.generation == generation:
            return base, False
        updated, outdated = sync(base or Snapshot.empty(generation, model, dim), generation)
        save(updated, directory)
        return updated, switched or outdated


def sync(snapshot: Snapshot, generation: int) -> tuple[Snapshot, bool]:
    """The snapshot with the database's live chunks: add new ids, drop retired ones, reload
    those re-embedded in place (their vector count changed). True when some added chunk has
    not the vectors `chunk_vectors` makes today (embedded before sentence windows)."""
    floats = 4 * snapshot.dim
    live = {
        chunk_id: (document_id, size // floats)
        for chunk_id, document_id, size in live_chunks(snapshot.model)
        .annotate(size=Length("embedding"))
        .values_list("id", "document_id", "size")
    }
    have = dict(zip(snapshot.ids.tolist(), snapshot.vector_counts().tolist(), strict=True))
    redone = {
        chunk_id for chunk_id, count in have.items() if live.get(chunk_id, (0, count))[1] != count
    }
    gone = (have.keys() - live.keys()) | redone
    new = sorted((live.keys() - have.keys()) | redone)
    outdated = False
    added: list[tuple[int, int, str, np.ndarray]] = []
    for start in range(0, len(new), BATCH):
        batch = new[start : start + BATCH]
        for chunk_id, document_id, text, blob in Chunk.objects.filter(id__in=batch).values_list(
            "id", "document_id", "text", "embedding"
        ):
            vectors = np.frombuffer(bytes(blob), np.float32)
            if not vectors.size or vectors.size % snapshot.dim:
                logger.warning(
                    "Chunk %s has %s floats, not %s-dim rows; skipped.",
                    chunk_id,
                    vectors.size,
                    snapshot.dim,
                )
                continue
            vectors = vectors.reshape(-1, snapshot.dim)
            outdated = outdated or len(vectors) != 1 + len(windows(text))
            # Held as the index holds them: half the memory while a whole vault is read.
            vectors = vectors.astype(np.float16)
            added.append((chunk_id, document_id, text, vectors))
    if not gone and not added:
        return snapshot.relabelled(generation), outdated
    return snapshot.changed(generation, remove=gone, add=added), outdated
