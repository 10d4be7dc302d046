"""The stored snapshot: which database state it caches (the generation, the live chunks) and its
file under DATA_DIR/index/, written and read as one, with one writer at a time under a file lock."""

import fcntl
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from django.conf import settings

from apps.vault.models import Chunk, IndexState
from apps.vault.search.snapshot import Snapshot, dense_index, stored_rows

logger = logging.getLogger(__name__)

FILE_NAME = "hybrid.npz"
# 2: several vectors per chunk (`starts`); 3: the vectors in float16; 4: options keep their
# dashes as terms (`-k`). A file of another format reads as missing, so it is rebuilt from the
# database, never misread.
FORMAT = 4
BATCH = 1000


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


def save(snapshot: Snapshot, directory: Path) -> None:
    """Write to a temp file, fsync, `os.replace`: a reader sees the old pair or the new one."""
    directory.mkdir(parents=True, exist_ok=True)
    meta = {
        "format": FORMAT,
        "generation": snapshot.generation,
        "model": snapshot.model,
        "dim": snapshot.dim,
    }
    fd, temp = tempfile.mkstemp(dir=directory, prefix=".hybrid-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            np.savez(
                handle,
                meta=np.frombuffer(json.dumps(meta).encode(), np.uint8),
                ids=snapshot.ids,
                document_ids=snapshot.document_ids,
                vectors=snapshot.vectors(),
                starts=snapshot.starts,
                indptr=snapshot.postings.indptr,
                indices=snapshot.postings.indices,
                data=snapshot.postings.data,
                doc_len=snapshot.doc_len,
                vocab=np.frombuffer("\n".join(snapshot.vocab).encode(), np.uint8),
            )
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, directory / FILE_NAME)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def load(directory: Path) -> Snapshot | None:
    """The saved snapshot, or None when it is missing or unreadable (then it is rebuilt)."""
    path = directory / FILE_NAME
    if not path.exists():
        return None
    from scipy import sparse  # loads with the first index (docs/deployment.md#start-up-time)

    try:
        with np.load(path, allow_pickle=False) as stored:
            meta = json.loads(stored["meta"].tobytes())
            if meta.get("format") != FORMAT:
                logger.info("The saved index at %s is of an older format; rebuilding it.", path)
                return None
            dim = int(meta["dim"])
            dense = _read_vectors(stored, dim)
            vocab_bytes = stored["vocab"].tobytes()
            vocab = vocab_bytes.decode().split("\n") if vocab_bytes else []
            postings = sparse.csc_matrix(
                (stored["data"], stored["indices"], stored["indptr"]),
                shape=(len(stored["ids"]), len(vocab)),
            )
            postings.check_format(full_check=True)
            return Snapshot(
                generation=int(meta["generation"]),
                model=str(meta["model"]),
                dim=dim,
                ids=stored["ids"].astype(np.int64),
                document_ids=stored["document_ids"].astype(np.int64),
                dense=dense,
                starts=stored["starts"].astype(np.int64),
                postings=postings,
                doc_len=stored["doc_len"].astype(np.float32),
                vocab=vocab,
            )
    except Exception:  # any damage means "not there": the database rebuilds it
        logger.warning("The saved index at %s is unreadable; rebuilding it.", path, exc_info=True)
        return None


def _read_vectors(stored: np.lib.npyio.NpzFile, dim: int):
    """The stored float16 rows read straight into a new dense index (no second copy)."""
    with stored.zip.open("vectors.npy") as member:
        version = np.lib.format.read_magic(member)
        read_header = {
            (1, 0): np.lib.format.read_array_header_1_0,
            (2, 0): np.lib.format.read_array_header_2_0,
        }[version]
        shape, fortran, dtype = read_header(member)
        if dtype != np.float16 or fortran or len(shape) != 2 or shape[1] != dim:
            raise ValueError(f"vectors of shape {shape} and type {dtype}, not float16 × {dim}")
        dense = dense_index(dim, shape[0])
        target = memoryview(stored_rows(dense).reshape(-1).view(np.uint8))
        done = 0
        while done < len(target):
            read = member.readinto(target[done:])
            if not read:
                raise ValueError("the vectors end early")
            done += read
    return dense


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
