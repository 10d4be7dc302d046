"""One segment of the index: some chunks' rows (ids, documents, where their vectors start, their
lengths in terms), their float16 vectors, and their BM25 postings and terms.

A segment is written once into a folder of its own and then only mapped, never changed, so every
process that searches shares its pages through the page cache instead of holding a copy: the
arrays from one file (`numpy` views of a read-only map), the vectors as a faiss float16 index
read with `IO_FLAG_MMAP_IFC`, and, for a large segment, the approximate index (apps/vault/search/
ann.py) read with `IO_FLAG_MMAP`. Removing a chunk marks its row dead in the manifest
(apps/vault/search/store.py); a merge writes a new segment without the dead rows.
"""

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from apps.vault.search import ann
from apps.vault.search.ranking import DENSE_CANDIDATES, faiss_library
from apps.vault.search.vocabulary import Vocabulary, vocabulary_arrays

ARRAYS_FILE = "arrays.bin"
VECTORS_FILE = "vectors.faiss"
ALIGN = 64  # bytes; each array starts on a cache line


@dataclass
class Rows:
    """What a segment holds besides its vectors: a row per chunk and the postings by term."""

    ids: np.ndarray  # chunk ids
    document_ids: np.ndarray
    counts: np.ndarray  # vectors per chunk: its own, then its sentence windows'
    doc_len: np.ndarray  # terms per chunk
    terms: list[str]  # sorted; term i is column i of the postings
    indptr: np.ndarray  # postings by term (CSC): rows indices[indptr[i]:indptr[i + 1]]
    indices: np.ndarray
    tf: np.ndarray  # each posting's term frequency


def write_segment(folder: Path, rows: Rows, vectors: Iterable[np.ndarray], dim: int) -> None:
    """Write the segment into `folder` (which must not exist yet): into a `.tmp` folder first,
    each file fsynced, then renamed, so a folder without `.tmp` is always whole.

    `vectors` yields float16 batches, each chunk's rows in order, `rows.counts` of them."""
    temp = folder.with_name(folder.name + ".tmp")
    temp.mkdir(parents=True)
    total = int(rows.counts.sum())
    write_vectors(temp / VECTORS_FILE, dim, total, vectors)
    documents, codes = np.unique(rows.document_ids, return_inverse=True)
    arrays = {
        "ids": rows.ids.astype(np.int64),
        "documents": documents.astype(np.int64),
        "document_codes": codes.reshape(-1).astype(np.int32),
        "starts": (np.cumsum(rows.counts) - rows.counts).astype(np.int64),
        # Each vector's chunk row: the label faiss hands back for it.
        "vector_rows": np.repeat(np.arange(len(rows.ids), dtype=np.int64), rows.counts),
        "doc_len": rows.doc_len.astype(np.float32),
        "indptr": rows.indptr.astype(np.int64),
        "indices": rows.indices.astype(np.int32),
        "tf": rows.tf.astype(np.float32),
        **{f"vocabulary.{k}": v for k, v in vocabulary_arrays(rows.terms).items()},
    }
    write_arrays(temp / ARRAYS_FILE, arrays)
    if ann.wanted(total):
        stored = read_vectors(temp / VECTORS_FILE)
        ann.build(temp / ann.FILE_NAME, vectors_of(stored), arrays["vector_rows"])
    sync_folder(temp)
    temp.rename(folder)
    sync_folder(folder.parent)


def write_arrays(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Named arrays in one file: an 8-byte header length, a JSON header of (dtype, shape,
    offset) per name, then each array aligned."""
    header, offset = {}, 0
    for name, array in arrays.items():
        offset = -(-offset // ALIGN) * ALIGN
        header[name] = [array.dtype.str, list(array.shape), offset]
        offset += array.nbytes
    head = json.dumps(header).encode()
    base = -(-(8 + len(head)) // ALIGN) * ALIGN
    with open(path, "wb") as handle:
        handle.write(len(head).to_bytes(8, "little") + head)
        for name, array in arrays.items():
            handle.seek(base + header[name][2])
            handle.write(np.ascontiguousarray(array).tobytes())
        handle.truncate(base + offset)
        handle.flush()
        os.fsync(handle.fileno())


def read_arrays(path: Path) -> dict[str, np.ndarray]:
    """The arrays of `write_arrays`, as read-only views of one map of the file."""
    mapped = np.memmap(path, np.uint8, mode="r")
    size = int.from_bytes(mapped[:8].tobytes(), "little")
    header = json.loads(mapped[8 : 8 + size].tobytes())
    base = -(-(8 + size) // ALIGN) * ALIGN
    return {
        name: np.ndarray(tuple(shape), np.dtype(dtype), buffer=mapped, offset=base + offset)
        for name, (dtype, shape, offset) in header.items()
    }


def write_vectors(path: Path, dim: int, total: int, batches: Iterable[np.ndarray]) -> None:
    """A faiss float16 flat index of `total` rows, written as faiss writes one (its header,
    then the codes) but a batch at a time, so no copy of all the vectors is ever in memory."""
    faiss = faiss_library()
    empty = faiss.IndexScalarQuantizer(
        dim, faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT
    )
    header = bytearray(faiss.serialize_index(empty).tobytes())
    header[8:16] = total.to_bytes(8, "little")  # ntotal, after the fourcc and the dimension
    header[-8:] = (total * dim * 2).to_bytes(8, "little")  # the codes' size, then the codes
    written = 0
    with open(path, "wb") as handle:
        handle.write(header)
        for batch in batches:
            batch = np.ascontiguousarray(batch, dtype=np.float16).reshape(-1, dim)
            handle.write(batch.tobytes())
            written += len(batch)
        handle.flush()
        os.fsync(handle.fileno())
    if written != total:
        raise ValueError(f"{written} vectors written, {total} announced")


def read_vectors(path: Path):
    faiss = faiss_library()
    return faiss.read_index(str(path), faiss.IO_FLAG_MMAP_IFC | faiss.IO_FLAG_READ_ONLY)


def vectors_of(index) -> np.ndarray:
    """A flat float16 index's rows as a read-only numpy view (valid while `index` lives)."""
    if not index.ntotal:
        return np.zeros((0, index.d), np.float16)
    faiss = faiss_library()
    size = index.ntotal * index.code_size
    rows = faiss.rev_swig_ptr(index.codes.data(), size).view(np.float16).reshape(-1, index.d)
    rows.flags.writeable = False  # the map is read-only: a write would crash the process
    return rows


def sync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


_mapped: dict[Path, "Segment"] = {}  # this process's open segments, by folder


def mapped(folder: Path) -> "Segment":
    """The segment in `folder`, mapped once per process."""
    if folder not in _mapped:
        _mapped[folder] = Segment(folder)
    return _mapped[folder]


def unmap_others(folders: set[Path]) -> None:
    """Forget the segments not in `folders` (the snapshots still using one keep it mapped)."""
    for folder in set(_mapped) - folders:
        del _mapped[folder]


class Segment:
    """A written segment, mapped. Row i is chunk `ids[i]`; its vectors are the rows
    `starts[i]` onwards of `vectors()`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.name = folder.name
        arrays = read_arrays(folder / ARRAYS_FILE)
        self.ids = arrays["ids"]
        self.documents = arrays["documents"]
        self.document_codes = arrays["document_codes"]
        self.starts = arrays["starts"]
        self.vector_rows = arrays["vector_rows"]
        self.doc_len = arrays["doc_len"]
        self.indptr, self.indices, self.tf = arrays["indptr"], arrays["indices"], arrays["tf"]
        self.vocabulary = Vocabulary(
            {k.removeprefix("vocabulary."): v for k, v in arrays.items() if "." in k}
        )
        self.flat = read_vectors(folder / VECTORS_FILE)
        self.ann = ann.read(folder / ann.FILE_NAME)

    def __len__(self) -> int:
        return len(self.ids)

    def vectors(self) -> np.ndarray:
        return vectors_of(self.flat)

    def vector_counts(self) -> np.ndarray:
        """Each chunk's number of vectors, worked out when asked: kept, it would be a copy the
        size of `ids` in every process that searches, while a search needs a few rows' only."""
        return np.diff(self.starts, append=self.flat.ntotal)

    def counts_of(self, rows: np.ndarray) -> np.ndarray:
        """The number of vectors of each of these rows."""
        return self._first_vectors(rows + 1) - self.starts[rows]

    def _first_vectors(self, rows: np.ndarray) -> np.ndarray:
        """Where each row's vectors start; for the row after the last, the end of them all."""
        inside = self.starts[np.minimum(rows, len(self) - 1)]
        return np.where(rows < len(self), inside, self.flat.ntotal)

    def dense(
        self, query: np.ndarray, allowed: np.ndarray | None, n: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Rows of the n nearest allowed chunks (max-sim over each chunk's vectors) and their
        scores, best first. A segment with an approximate index takes its candidates, rescored
        exactly, unless the scope holds few enough vectors to scan them all exactly."""
        runs = self.vector_runs(allowed)
        scoped = sum(end - start for start, end in runs)
        if not scoped:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        wanted = min(n, len(self) if allowed is None else int(allowed.sum()))
        if self.ann is not None and scoped > ann.EXACT_VECTORS:
            rows = ann.candidates(self.ann, query, allowed, wanted, scoped / self.flat.ntotal)
            return self.rescored(query, rows, n)
        return self.scan(query, runs, wanted, n)

    def rescored(
        self, query: np.ndarray, rows: np.ndarray, n: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """The n best of these chunk rows by their exact max-sim, best first."""
        counts = self.counts_of(rows)
        first = np.cumsum(counts) - counts
        at = np.repeat(self.starts[rows] - first, counts) + np.arange(int(counts.sum()))
        scores = self.vectors()[at].astype(np.float32) @ query.reshape(-1)
        best = np.maximum.reduceat(scores, first) if len(rows) else scores
        order = np.lexsort((rows, -best))[:n]
        return rows[order].astype(np.int64), best[order]

    def scan(
        self, query: np.ndarray, runs: list[tuple[int, int]], wanted: int, n: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Exact: faiss's float16 scanner over the allowed rows' vectors, run by run (a
        document's chunks are neighbours), keeps the best DENSE_CANDIDATES × n vectors; the
        first n distinct chunks among them are the n best, and when they are fewer the scan is
        repeated for more. Costs the vectors in scope, not the segment."""
        faiss = faiss_library()
        codes = faiss.rev_swig_ptr(self.flat.codes.data(), self.flat.ntotal * self.flat.code_size)
        size = self.flat.code_size
        scanner = self.flat.sq.select_InvertedListScanner(
            faiss.METRIC_INNER_PRODUCT, None, False, None
        )
        query = np.ascontiguousarray(query, np.float32)
        scanner.set_query(faiss.swig_ptr(query))
        scanner.set_list(0, 0)
        total = int(sum(end - start for start, end in runs))
        k = min(total, DENSE_CANDIDATES * n)
        while True:
            scores = np.full(k, -np.inf, np.float32)
            found = np.full(k, -1, np.int64)
            for start, end in runs:
                scanner.scan_codes(
                    end - start,
                    faiss.swig_ptr(codes[start * size :]),
                    faiss.swig_ptr(self.vector_rows[start:]),
                    faiss.swig_ptr(scores),
                    faiss.swig_ptr(found),
                    k,
                )
            order = np.argsort(-scores, kind="stable")
            rows, scores = found[order], scores[order]
            rows, scores = rows[rows >= 0], scores[rows >= 0]
            _, first = np.unique(rows, return_index=True)  # each chunk at its best vector
            first.sort()
            if len(first) >= wanted or k >= total:
                break
            k = min(total, 4 * k)
        first = first[:n]
        return rows[first], scores[first]

    def vector_runs(self, allowed: np.ndarray | None) -> list[tuple[int, int]]:
        """The allowed rows' vectors as (start, end) runs of the flat index."""
        if allowed is None:
            return [(0, int(self.flat.ntotal))]
        edges = np.flatnonzero(np.diff(allowed.astype(np.int8), prepend=0, append=0))
        bounds = self._first_vectors(edges).tolist()
        return list(zip(bounds[::2], bounds[1::2], strict=True))
