"""This process's snapshot, brought up to date with the database's live chunks when they change:
the documents the change journal names since the stored index's generation (IndexChange) are
read again into a new small segment and their old rows marked dead, one writer at a time, and
the manifest saved for the other processes. A merge in the worker then joins small segments."""

import logging
import threading
from collections.abc import Iterable

import numpy as np
from django.db.models.functions import Length

from apps.jobs.lifecycle import send_on_commit
from apps.llm import gateway
from apps.vault.chunking import windows
from apps.vault.models import Chunk
from apps.vault.search import merging, reembed
from apps.vault.search.models import IndexChange, IndexState
from apps.vault.search.snapshot import Snapshot
from apps.vault.search.store import (
    BATCH,
    clean,
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
            snapshot, switched = _refresh(generation, model.name, int(model.dim))
            snapshot.key = key
            _snapshot = snapshot
            if switched:  # re-embedded in the background while searching goes on
                send_on_commit(reembed.REEMBED_TASK, "the re-embedding of stale chunks")
    return snapshot


def catch_up() -> None:
    """Bring the stored index up to date now (after an ingestion commits), so the first search
    finds the new segment written; a failure is logged, the next search tries again."""
    try:
        current()
    except Exception:
        logger.warning("Could not bring the index up to date; the next search will.", exc_info=True)


def forget() -> None:
    """Drop this process's snapshot (tests; a new DATA_DIR)."""
    global _snapshot
    _snapshot = None


def _refresh(generation: int, model: str, dim: int) -> tuple[Snapshot, bool]:
    """The stored snapshot, brought up to date first when the database moved on; True when
    chunks need re-embedding (the model changed, or chunks have an older vector layout)."""
    directory = index_dir()
    with writer_lock(directory):
        state = IndexState.current()  # read before the changes, so none is missed
        stored = load(directory)
        if stored is not None and (stored[0].model, stored[0].dim) == (model, dim):
            base, since = stored
            if base.generation == generation:
                return base, False
        else:
            base, since = Snapshot.empty(generation, model, dim, directory), None
        updated, outdated = sync(base, generation, since, state)
        save(updated, directory, state)
        # What the stored index holds needs no journal any more: it never grows past a change.
        IndexChange.objects.filter(generation__lte=state).delete()
        clean(directory, updated)
    if merging.chosen(updated):  # merged in the background while searching goes on
        send_on_commit(merging.MERGE_TASK, "the merge of index segments")
    return updated, outdated or (stored is not None and since is None)


def sync(
    snapshot: Snapshot, generation: int, since: int | None, state: int
) -> tuple[Snapshot, bool]:
    """The snapshot with the database's live chunks. With `since` (the IndexState generation
    the snapshot is the live set of), only the documents the journal names after it are read
    again; without it, when a change named no document, or when the journal no longer goes
    back to it (an older copy of the index), every live chunk is compared.
    True when some added chunk has not the vectors `chunk_vectors` makes today."""
    changes = set()
    # Every generation journals at least one row, so a missing first one was pruned.
    behind = since is not None and since < state
    if behind and not IndexChange.objects.filter(generation=since + 1).exists():
        since = None
    if since is not None:
        changes = set(
            IndexChange.objects.filter(generation__gt=since, generation__lte=state).values_list(
                "document_id", flat=True
            )
        )
    if since is None or None in changes:
        gone, new = _compared(snapshot)
    else:
        documents = np.fromiter(changes, np.int64)
        gone = set(snapshot.ids[snapshot.allowed_rows(documents)].tolist())
        new = sorted(
            live_chunks(snapshot.model).filter(document__in=changes).values_list("id", flat=True)
        )
    added, outdated = _read(new, snapshot.dim)
    if not gone and not added:
        return snapshot.relabelled(generation), outdated
    return snapshot.changed(generation, remove=gone, add=added), outdated


def _compared(snapshot: Snapshot) -> tuple[set[int], list[int]]:
    """Every live chunk against the snapshot: ids gone, and ids new or re-embedded in place
    (their vector count changed)."""
    floats = 4 * snapshot.dim
    live = {
        chunk_id: size // floats
        for chunk_id, size in live_chunks(snapshot.model)
        .annotate(size=Length("embedding"))
        .values_list("id", "size")
    }
    have = dict(zip(snapshot.chunk_ids().tolist(), snapshot.vector_counts().tolist(), strict=True))
    redone = {chunk_id for chunk_id, count in have.items() if live.get(chunk_id, count) != count}
    return (have.keys() - live.keys()) | redone, sorted((live.keys() - have.keys()) | redone)


def _read(ids: Iterable[int], dim: int) -> tuple[list[tuple[int, int, str, np.ndarray]], bool]:
    """The chunks' rows with their vectors in float16, and True when one was embedded before
    sentence windows."""
    ids = list(ids)
    outdated = False
    added: list[tuple[int, int, str, np.ndarray]] = []
    for start in range(0, len(ids), BATCH):
        batch = ids[start : start + BATCH]
        for chunk_id, document_id, text, blob in (
            Chunk.objects.filter(id__in=batch)
            .order_by("document_id", "ordinal")
            .values_list("id", "document_id", "text", "embedding")
        ):
            vectors = np.frombuffer(bytes(blob), np.float32)
            if not vectors.size or vectors.size % dim:
                logger.warning(
                    "Chunk %s has %s floats, not %s-dim rows; skipped.", chunk_id, vectors.size, dim
                )
                continue
            vectors = vectors.reshape(-1, dim)
            outdated = outdated or len(vectors) != 1 + len(windows(text))
            # Held as the index holds them: half the memory while a whole vault is read.
            added.append((chunk_id, document_id, text, vectors.astype(np.float16)))
    return added, outdated
