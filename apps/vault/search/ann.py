"""The approximate dense index of a large segment: an inverted file (IVF) over product-quantized
codes of its vectors, giving candidate chunks that the segment then rescores exactly from its
float16 vectors (apps/vault/search/segment.py). The choice and its figures:
docs/retrieval.md#approximate-search.

A small segment has none: its exact scan is as fast. The index's ids are chunk rows, so a scope is
one bitmap over rows inside the scan, and a narrow scope probes more lists (to the whole index
for one of a few per cent, which is then a scan of the short codes, still rescored exactly).
"""

import math
import os
from pathlib import Path

import numpy as np

from apps.vault.search.ranking import MIN_CANDIDATES, faiss_library

FILE_NAME = "ann.faiss"
MIN_VECTORS = 250_000  # below, a segment is scanned exactly: ~15 ms at most, no index to train
EXACT_VECTORS = 150_000  # a scope of at most this many vectors is scanned exactly
PROBES = 128  # inverted lists probed with the whole segment in scope; more for a narrower one
RESCORED = 20  # candidate vectors per chunk wanted, rescored exactly
SAMPLE_PER_LIST = 40  # training vectors per inverted list (k-means)
PQ_SAMPLE = 10_000  # at least, for the 256 codes of each sub-vector
TRAIN_ITERATIONS = 10
BATCH = 100_000  # vectors encoded at a time


def wanted(vectors: int) -> bool:
    return vectors >= MIN_VECTORS


def list_count(vectors: int) -> int:
    """About √vectors inverted lists, a power of two: 2,048 for the 5M vectors of 1M chunks."""
    return 2 ** round(math.log2(max(vectors, 1)) / 2)


def build(path: Path, vectors: np.ndarray, rows: np.ndarray) -> None:
    """Train on a sample of the float16 `vectors` and encode them all, each under its chunk row."""
    faiss = faiss_library()
    dim = vectors.shape[1]
    lists = list_count(len(vectors))
    quantizer = faiss.IndexFlatIP(dim)
    # 8-bit codes of dim / 4 sub-vectors: the lists of this kind are mapped when read
    # (the 4-bit "fast scan" lists are read into each process's memory).
    index = faiss.IndexIVFPQ(quantizer, dim, lists, dim // 4, 8, faiss.METRIC_INNER_PRODUCT)
    index.by_residual = False
    index.cp.niter = TRAIN_ITERATIONS
    size = min(len(vectors), max(SAMPLE_PER_LIST * lists, PQ_SAMPLE))
    sample = np.sort(np.random.default_rng(0).choice(len(vectors), size, replace=False))
    index.train(vectors[sample].astype(np.float32))
    for start in range(0, len(vectors), BATCH):
        end = min(start + BATCH, len(vectors))
        index.add_with_ids(vectors[start:end].astype(np.float32), rows[start:end].astype(np.int64))
    faiss.write_index(index, str(path))
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


def read(path: Path):
    if not path.exists():
        return None
    faiss = faiss_library()
    return faiss.read_index(str(path), faiss.IO_FLAG_MMAP | faiss.IO_FLAG_READ_ONLY)


def candidates(
    index, query: np.ndarray, allowed: np.ndarray | None, wanted: int, fraction: float
) -> np.ndarray:
    """Distinct chunk rows among the RESCORED × `wanted` (at least MIN_CANDIDATES) nearest
    allowed codes; `fraction` of the vectors are in scope, and the lists probed grow as it
    shrinks."""
    faiss = faiss_library()
    probes = min(index.nlist, math.ceil(PROBES / fraction))
    params = faiss.SearchParametersIVF()
    if allowed is not None:
        bits = np.packbits(allowed, bitorder="little")
        params.sel = faiss.IDSelectorBitmap(len(allowed), faiss.swig_ptr(bits))
    # Never fewer candidates than a search asks for (MIN_CANDIDATES chunks): a short list
    # would leave its last places to the codes' rounding.
    k = min(index.ntotal, RESCORED * max(wanted, MIN_CANDIDATES))
    while True:
        params.nprobe = probes
        _, found = index.search(query.reshape(1, -1), k, params=params)
        found = np.unique(found[0][found[0] >= 0])
        if len(found) >= wanted or (probes >= index.nlist and k >= index.ntotal):
            return found
        probes, k = min(index.nlist, 4 * probes), min(index.ntotal, 4 * k)
