"""The stored index under DATA_DIR/index/: which database state it caches (the generation, the
live chunks), its manifest (the segments in order and their dead chunk ids) replaced atomically,
the segments' folders, and one writer at a time under a file lock.

The index is a cache of the database (a chunk's vectors live in its row): a missing, damaged or
older index is rebuilt from it, and no file here is ever the only copy of anything.
"""

import fcntl
import hashlib
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from django.conf import settings

from apps.vault.models import Chunk
from apps.vault.search.models import IndexState
from apps.vault.search.segment import mapped, sync_folder, unmap_others
from apps.vault.search.snapshot import SEGMENTS, Snapshot

logger = logging.getLogger(__name__)

MANIFEST = "manifest.json"
# 2: several vectors per chunk; 3: float16; 4: options as terms; 5: segments. An index of another
# format reads as missing, so it is rebuilt from the database, never misread.
FORMAT = 5
BATCH = 1000
MERGE_LOCK = ".merge.lock"


def current_generation(model_name: str) -> int:
    """A number that changes whenever the set of live chunks changes.

    The vault bumps IndexState in the same transaction that makes chunks live or retires them
    (IndexState.bump); the model name keeps two vector spaces apart.
    """
    key = f"{model_name}|{IndexState.current()}"
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:7], "big")


def live_chunks(model_name: str):
    """The chunks the index holds: live ones embedded with the current model."""
    return Chunk.objects.live().filter(embedding_model=model_name)


def index_dir() -> Path:
    return Path(settings.DATA_DIR) / "index"


def save(snapshot: Snapshot, directory: Path, state: int) -> None:
    """Write the manifest to a temp file, fsync, `os.replace`: a reader sees the old one or the
    new one, and both name only whole segments. `state` is the IndexState generation the
    snapshot is the live set of."""
    manifest = {
        "format": FORMAT,
        "generation": snapshot.generation,
        "state": state,
        "model": snapshot.model,
        "dim": snapshot.dim,
        "segments": [segment.name for segment in snapshot.segments],
        "dead": {name: ids.tolist() for name, ids in snapshot.dead.items()},
    }
    directory.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=directory, prefix=".manifest-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as handle:
            json.dump(manifest, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, directory / MANIFEST)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    sync_folder(directory)


def load(directory: Path) -> tuple[Snapshot, int] | None:
    """The stored snapshot and its IndexState generation, or None when it is missing, of
    another format or unreadable (then it is rebuilt)."""
    path = directory / MANIFEST
    if not path.exists():
        return None
    try:
        manifest = json.loads(path.read_text())
        if manifest.get("format") != FORMAT:
            logger.info("The saved index at %s is of another format; rebuilding it.", directory)
            return None
        segments = [mapped(directory / SEGMENTS / name) for name in manifest["segments"]]
        unmap_others({segment.folder for segment in segments})
        snapshot = Snapshot(
            generation=int(manifest["generation"]),
            model=str(manifest["model"]),
            dim=int(manifest["dim"]),
            folder=directory,
            segments=segments,
            dead={name: np.array(ids, np.int64) for name, ids in manifest["dead"].items()},
        )
        return snapshot, int(manifest["state"])
    except Exception:  # any damage means "not there": the database rebuilds it
        logger.warning(
            "The saved index at %s is unreadable; rebuilding it.", directory, exc_info=True
        )
        return None


def clean(directory: Path, snapshot: Snapshot, *, merging: bool = False) -> None:
    """Remove the segments the manifest no longer names (merged, or left by a crash) and the
    index files of older formats. Under the writer lock; while a merge runs (unless this is the
    merge) its new segment is not named yet, so nothing is removed."""
    if not merging and merge_running(directory):
        return
    named = {segment.name for segment in snapshot.segments}
    folder = directory / SEGMENTS
    for path in folder.iterdir() if folder.exists() else ():
        if path.name not in named:
            shutil.rmtree(path, ignore_errors=True)
    (directory / "hybrid.npz").unlink(missing_ok=True)  # format 4 and before


@contextmanager
def writer_lock(directory: Path) -> Iterator[None]:
    """One writer across processes (web and worker): an exclusive lock on a lock file."""
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextmanager
def merge_lock(directory: Path) -> Iterator[bool]:
    """True when this process may merge (no other merge runs); held until the block ends."""
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / MERGE_LOCK, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def merge_running(directory: Path) -> bool:
    with merge_lock(directory) as free:
        return not free
