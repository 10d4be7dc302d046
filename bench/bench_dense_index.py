"""Which approximate index a large segment gets: faiss's IVF and HNSW indexes over the same
clustered vectors as bench_retrieval.py, each proposing candidate chunks that the segment then
rescores exactly from its float16 vectors, as the app does (apps/vault/search/ann.py).

For each: the build, the file, whether another process can map it instead of reading it into its
own memory, and the query (median / p95 ms) with recall@7 of the exact float32 max-sim top 7 over
RECALL_QUERIES questions. BENCH_CHUNKS (default 100000) and BENCH_DIMS (384) choose the size.
The choice and its figures: docs/retrieval.md#approximate-search.
"""

import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_retrieval as shared  # noqa: E402  (sets Django up)

from apps.vault.search import ann  # noqa: E402
from apps.vault.search.ranking import faiss_library  # noqa: E402
from apps.vault.search.snapshot import Snapshot  # noqa: E402

CHUNKS = int(os.environ.get("BENCH_CHUNKS", "100000"))
DIM = int(os.environ.get("BENCH_DIMS", "384"))
HNSW_NEIGHBOURS = 32  # M: the graph's links per vector
HNSW_SEARCH = 64  # efSearch, at least the candidates asked for


def build_ivf_fp16(path: Path, vectors: np.ndarray, rows: np.ndarray) -> None:
    faiss = faiss_library()
    lists = ann.list_count(len(vectors))
    index = faiss.IndexIVFScalarQuantizer(
        faiss.IndexFlatIP(DIM),
        DIM,
        lists,
        faiss.ScalarQuantizer.QT_fp16,
        faiss.METRIC_INNER_PRODUCT,
    )
    index.by_residual = False
    index.cp.niter = ann.TRAIN_ITERATIONS
    sample = np.random.default_rng(0).choice(len(vectors), ann.SAMPLE_PER_LIST * lists)
    index.train(vectors[np.sort(sample)].astype(np.float32))
    for start in range(0, len(vectors), ann.BATCH):
        batch = vectors[start : start + ann.BATCH].astype(np.float32)
        index.add_with_ids(batch, rows[start : start + ann.BATCH].astype(np.int64))
    faiss.write_index(index, str(path))


def build_hnsw(path: Path, vectors: np.ndarray, rows: np.ndarray) -> None:
    faiss = faiss_library()
    index = faiss.IndexHNSWSQ(
        DIM, faiss.ScalarQuantizer.QT_fp16, HNSW_NEIGHBOURS, faiss.METRIC_INNER_PRODUCT
    )
    index.train(vectors[:1000].astype(np.float32))
    for start in range(0, len(vectors), ann.BATCH):
        index.add(vectors[start : start + ann.BATCH].astype(np.float32))
    # HNSW keeps no ids: its labels are vector numbers, mapped to chunk rows after the search.
    faiss.write_index(index, str(path))


def hnsw_candidates(index, rows: np.ndarray, query: np.ndarray, wanted: int) -> np.ndarray:
    faiss = faiss_library()
    k = ann.RESCORED * wanted
    params = faiss.SearchParametersHNSW(efSearch=max(HNSW_SEARCH, k))
    _, found = index.search(query.reshape(1, -1), k, params=params)
    return np.unique(rows[found[0][found[0] >= 0]])


def mappable(path: Path) -> tuple[object, bool]:
    """The index read as the app reads it, and whether its file is mapped (not copied)."""
    faiss = faiss_library()
    try:
        index = faiss.read_index(str(path), faiss.IO_FLAG_MMAP | faiss.IO_FLAG_READ_ONLY)
    except RuntimeError:
        return faiss.read_index(str(path)), False
    return index, str(path) in Path("/proc/self/maps").read_text()


def main() -> None:
    texts = [""] * CHUNKS
    rows = shared.Rows(texts, DIM)
    ann.MIN_VECTORS = 10**12  # the segment itself without one: each variant is built below
    snapshot = Snapshot.empty(1, "bench", DIM).changed(1, add=rows)
    [segment] = snapshot.segments
    vectors, labels = segment.vectors(), segment.vector_rows
    everything = np.ones(CHUNKS, bool)
    questions, _ = rows.questions(shared.RECALL_QUERIES, seed=13)
    [exact] = shared.exact_top(rows, [everything], questions)
    variants = {
        "IVF, product-quantized codes (kept)": (
            ann.build,
            lambda index, q: ann.candidates(index, q, None, 20, 1.0),
        ),
        "IVF, float16 codes": (
            build_ivf_fp16,
            lambda index, q: ann.candidates(index, q, None, 20, 1.0),
        ),
        f"HNSW, float16, M = {HNSW_NEIGHBOURS}": (
            build_hnsw,
            lambda index, q: hnsw_candidates(index, labels, q, 20),
        ),
    }
    print(f"## The approximate index of one segment: {CHUNKS:,} chunks, {len(vectors):,} vectors\n")
    print(f"Each proposes candidates for the 20 best chunks ({ann.RESCORED} vectors a chunk),")
    print("rescored exactly from the segment's float16 vectors. One faiss thread.\n")
    print("| index | build | file | mapped | query median / p95 | recall@7 (≥ 0.98) |")
    print("| --- | ---: | ---: | --- | ---: | ---: |")
    with tempfile.TemporaryDirectory(prefix="bench-dense-index-") as folder:
        for name, (build, candidates) in variants.items():
            path = Path(folder) / f"{len(os.listdir(folder))}.faiss"
            start = time.perf_counter()
            build(path, vectors, labels)
            built = time.perf_counter() - start
            index, mapped = mappable(path)

            def ranked(q, index=index, candidates=candidates):
                return segment.rescored(q, candidates(index, q), 20)[0]

            times = shared.timed(ranked, repeat=len(questions), args=[(q,) for q in questions])
            recall = np.mean(
                [
                    len(set(ranked(q)[:7].tolist()) & set(top.tolist())) / 7
                    for q, top in zip(questions, exact, strict=True)
                ]
            )
            print(
                f"| {name} | {built:.0f} s | {path.stat().st_size / 2**20:,.0f} MiB | "
                f"{'yes' if mapped else 'no: read into each process'} | "
                f"{shared.median(times):.1f} / {shared.p95(times):.1f} ms | {recall:.4f} |",
                flush=True,
            )
            index = None


if __name__ == "__main__":
    main()
