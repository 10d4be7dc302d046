"""Retrieval speed: index build, dense / BM25 / hybrid query latency, and BM25 implementations.

Synthetic chunks (Zipf-distributed words, some German-style compounds and identifiers) with
random L2-normalised vectors; no model is needed. Everything is measured side by side in one
run. BENCH_CHUNKS (default "10000,100000") and BENCH_DIMS ("384,768") choose the sizes;
BENCH_CHUNKS=1000000 BENCH_DIMS=384 is the million-passage run (~17 GiB at its peak, 25 min here);
BENCH_DENSE_ONLY=1 times only the dense query against the float32 scan (~7 GiB, 5 min).

The vectors are made 10k chunks at a time (a pool of random unit vectors under random signs per
dimension and block), so no size holds them all in float32: the float16 index is measured against
the exact float32 max-sim ranking, timed over at most BENCH_FLOAT32_CHUNKS chunks (default
200,000; above it over the first ones, scaled) and computed block by block for the recall@7 on
200 queries at every size.
"""

import gc
import os
import resource
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cognivault_site.settings")
os.environ.setdefault("DATA_DIR", tempfile.mkdtemp(prefix="bench-retrieval-"))

import django  # noqa: E402

django.setup()

import bm25s  # noqa: E402
from rank_bm25 import BM25Okapi  # noqa: E402

from apps.llm.tests.fake_ollama import FakeOllama  # noqa: E402
from apps.vault import embedding  # noqa: E402
from apps.vault.search import store  # noqa: E402
from apps.vault.search.snapshot import Snapshot  # noqa: E402
from apps.vault.tokenize import tokenize  # noqa: E402

SIZES = [int(n) for n in os.environ.get("BENCH_CHUNKS", "10000,100000").split(",")]
DIMS = [int(d) for d in os.environ.get("BENCH_DIMS", "384,768").split(",")]
# Vectors per chunk: its own and its sentence windows; 5.0 on average over the retrieval
# evaluation's chunks (bench/retrieval_eval/), so 5 here. BENCH_VECTORS=1 is one per chunk.
VECTORS = int(os.environ.get("BENCH_VECTORS", "5"))
QUERIES = 40
ROUNDS = 5  # each query this many times, interleaved
ROUNDS_LARGE = 1  # above BENCH_FLOAT32_CHUNKS
RECALL_QUERIES = 200
FLOAT32_CHUNKS = int(os.environ.get("BENCH_FLOAT32_CHUNKS", "200000"))
BM25_CHUNKS = int(os.environ.get("BENCH_BM25_CHUNKS", "200000"))  # rank-bm25 and bm25s up to
BLOCK = 10_000  # chunks whose vectors are made at a time
# Only the dense half against the float32 scan: empty texts, no recall, file or ingestion.
DENSE_ONLY = os.environ.get("BENCH_DENSE_ONLY") == "1"
WORDS_PER_CHUNK = 120
rng = np.random.default_rng(42)


def make_vocabulary(size: int = 40_000) -> list[str]:
    # fmt: off
    syllables = ["ver", "prü", "fung", "ord", "nung", "zel", "le", "ge", "setz", "ab", "schnitt",
                 "ma", "the", "bio", "lo", "gie", "ka", "pi", "tel", "an", "la", "stu", "di",
                 "en", "recht", "haus", "auf", "ga", "be", "ler", "nen", "wis", "sen"]
    # fmt: on
    words = set()
    while len(words) < size:
        n = int(rng.integers(2, 6))
        words.add("".join(rng.choice(syllables, n)))
    vocabulary = sorted(words)
    vocabulary[::500] = [f"§{i}" for i in range(len(vocabulary[::500]))]
    vocabulary[1::500] = [f"{i}B" for i in range(len(vocabulary[1::500]))]
    return vocabulary


VOCABULARY = make_vocabulary()
ZIPF = 1.0 / np.arange(1, len(VOCABULARY) + 1) ** 1.05
ZIPF /= ZIPF.sum()


def make_texts(n: int) -> list[str]:
    texts = []
    for start in range(0, n, BLOCK):
        size = min(BLOCK, n - start)
        picks = rng.choice(len(VOCABULARY), size=(size, WORDS_PER_CHUNK), p=ZIPF)
        texts.extend(" ".join(VOCABULARY[i] for i in row) for row in picks)
    return texts


def make_queries() -> list[str]:
    middle = VOCABULARY[100:5000]
    return [" ".join(rng.choice(middle, int(rng.integers(1, 4)))) for _ in range(QUERIES)]


def unit_vectors(n: int, dim: int) -> np.ndarray:
    vectors = rng.standard_normal((n, dim), dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def timed(function, repeat: int = QUERIES, args=None) -> list[float]:
    times = []
    for i in range(repeat):
        start = time.perf_counter()
        function(*(args[i % len(args)] if args else ()))
        times.append((time.perf_counter() - start) * 1000)
    return times


def interleaved(functions, args, rounds: int = ROUNDS) -> list[list[float]]:
    """Times of each function on each argument, taken in turn (a, b, c, a, b, c, ...).

    The machine is shared: measured one after the other, a busy minute lands on one column and
    skews the ratios; interleaved, every column sees the same load.
    """
    times: list[list[float]] = [[] for _ in functions]
    for _ in range(rounds):
        for arg in args:
            for function, column in zip(functions, times, strict=True):
                start = time.perf_counter()
                function(*arg)
                column.append((time.perf_counter() - start) * 1000)
    return times


def median(times: list[float]) -> float:
    return statistics.median(times)


def p95(times: list[float]) -> float:
    return float(np.percentile(times, 95))


def measure_memory(build) -> tuple[object, float, float, float]:
    """(built object, seconds, MiB held after, MiB peak while building from the texts).

    tracemalloc sees numpy buffers too; it slows building, so times here are pessimistic.
    """
    gc.collect()
    tracemalloc.start()
    start = time.perf_counter()
    built = build()
    seconds = time.perf_counter() - start
    gc.collect()
    held, peak = (size / 2**20 for size in tracemalloc.get_traced_memory())
    tracemalloc.stop()
    return built, seconds, held, peak


class Rows(Sequence):
    """The chunks as `Snapshot.changed` reads them, their vectors made a block at a time.

    Each block's vectors are one pool of random unit vectors under the block's own random signs
    per dimension: distinct, unit length, and cheap to make again for the exact scan.
    """

    def __init__(self, texts: list[str], dim: int, first_id: int = 1) -> None:
        self.texts, self.dim, self.first_id = texts, dim, first_id
        self.pool = unit_vectors(BLOCK * VECTORS, dim)
        self.signs = np.random.default_rng(dim).choice(
            np.array([-1, 1], np.float32), (len(texts) // BLOCK + 1, dim)
        )
        self.cached: tuple[int, np.ndarray] = (-1, self.pool)

    def __len__(self) -> int:
        return len(self.texts)

    def block(self, b: int) -> np.ndarray:
        """The float32 vectors of chunks b × BLOCK onwards, VECTORS rows per chunk."""
        if self.cached[0] != b:
            size = min(BLOCK, len(self) - b * BLOCK) * VECTORS
            self.cached = (b, self.pool[:size] * self.signs[b])
        return self.cached[1]

    def __getitem__(self, i: int) -> tuple[int, int, str, np.ndarray]:
        if not 0 <= i < len(self):
            raise IndexError(i)
        b, r = divmod(i, BLOCK)
        vectors = self.block(b)[r * VECTORS : (r + 1) * VECTORS]
        chunk_id = self.first_id + i
        return chunk_id, chunk_id // 50, self.texts[i], vectors  # 50 chunks per document


def main() -> None:
    queries = make_queries()
    speed, memory, bm25_out = [], [], []
    for n in SIZES:
        texts = [""] * n if DENSE_ONLY else make_texts(n)
        for dim in DIMS:
            figures = measure_size(texts, dim, queries)
            speed.append(figures[0])
            memory.append(figures[1])
            gc.collect()
        if n <= BM25_CHUNKS and not DENSE_ONLY:
            bm25_out.append(compare_bm25(n, texts, queries))
        texts = None
        gc.collect()
    print_tables(speed, memory, bm25_out)
    if not DENSE_ONLY:
        print(ingestion())


def print_tables(speed: list[str], memory: list[str], bm25_out: list[str]) -> None:
    rounds = f"{ROUNDS} rounds ({ROUNDS_LARGE} above {FLOAT32_CHUNKS:,} chunks)"
    print("## Retrieval (apps/vault/search/)\n")
    print(f"Latency in ms as median / p95 over {QUERIES} queries × {rounds}, the")
    print("measurements interleaved query by query; one faiss thread; ~90 % of chunks visible")
    print("(the scope bitmap is applied inside both scans). Build: tokenizing and indexing.")
    print(f"{VECTORS} vectors per chunk (its own and its sentence windows, scored by the best).")
    print("float32: numpy `X @ q` over every vector, then each chunk's best, as dense did before")
    print(f"float16; above {FLOAT32_CHUNKS:,} chunks over the first {FLOAT32_CHUNKS:,}, scaled.")
    print("dense: the float16 index as the app runs it. recall@7: of the exact float32 top 7,")
    print(f"over {RECALL_QUERIES} queries in scope.\n")
    print(
        "| chunks | dim | build | float32 max-sim | dense (float16) | dense ÷ float32 (≤ 1.3) "
        "| recall@7 (≥ 0.99) | BM25 | hybrid (no embedding) | hybrid ÷ (dense + BM25) (≤ 1.3) |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    print("\n".join(speed))
    if DENSE_ONLY:
        return
    print("\n## Memory and file of the snapshot\n")
    print("MiB of the dense vectors and of the whole snapshot (vectors, postings, row arrays) as")
    print("held, with the float32 figures of the same rows; the saved file, its save and load")
    print("times; the process's peak RSS so far (float32 reference vectors included).\n")
    print(
        "| chunks | dim | dense float16 / float32 | snapshot / with float32 (≤ 0.6×) "
        "| file / with float32 | save / load | peak RSS |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    print("\n".join(memory))
    if bm25_out:
        print("\n## BM25 implementations on the same chunks (full scoring + top 20)\n")
        print("Memory: MiB held by the built index, and peak while building it from the texts;")
        print("in brackets the ratio to rank-bm25 (target ≤ 0.2). Build times under tracemalloc.\n")
        print(
            "| chunks | implementation | build | held | peak | query median / p95 | vs rank-bm25 |"
        )
        print("| ---: | --- | ---: | ---: | ---: | ---: | ---: |")
        print("\n".join(bm25_out))


def float32_ranking(vectors: np.ndarray, starts: np.ndarray, allowed, v, n: int) -> np.ndarray:
    """The float32 max-sim scan dense ran before float16: every vector, each chunk's best."""
    scores = np.maximum.reduceat(vectors @ v, starts)
    scores[~allowed] = -np.inf
    top = np.argpartition(-scores, n - 1)[:n]
    return top[np.lexsort((top, -scores[top]))]


def exact_top(rows: Rows, allowed: np.ndarray, queries: np.ndarray, k: int = 7) -> np.ndarray:
    """Each query's exact float32 top k chunk rows (max-sim), block by block."""
    best = np.full((len(queries), 0), -np.inf, np.float32)
    best_rows = np.zeros((len(queries), 0), np.int64)
    for b in range(-(-len(rows) // BLOCK)):
        scores = (rows.block(b) @ queries.T).reshape(-1, VECTORS, len(queries)).max(axis=1)
        first = b * BLOCK
        scores[~allowed[first : first + len(scores)]] = -np.inf
        best = np.concatenate([best, scores.T], axis=1)
        best_rows = np.concatenate(
            [
                best_rows,
                np.broadcast_to(np.arange(first, first + len(scores)), (len(queries), len(scores))),
            ],
            axis=1,
        )
        keep = np.argsort(-best, axis=1, kind="stable")[:, :k]
        best = np.take_along_axis(best, keep, axis=1)
        best_rows = np.take_along_axis(best_rows, keep, axis=1)
    return best_rows


def measure_size(texts: list[str], dim: int, queries: list[str]) -> tuple[str, str]:
    n = len(texts)
    rows = Rows(texts, dim)
    start = time.perf_counter()
    snapshot = Snapshot.empty(1, "bench", dim).changed(1, add=rows)
    build = time.perf_counter() - start
    # Visibility: the class documents plus one student's own (~90 % of the chunks).
    documents = np.unique(snapshot.document_ids)
    allowed_documents = documents[documents % 10 != 3]
    allowed = np.isin(snapshot.document_ids, allowed_documents)

    def text_of(chunk_ids: list[int]) -> list[str]:
        return [texts[chunk_id - 1] for chunk_id in chunk_ids]

    functions = [
        lambda q, v: snapshot.dense_ranking(v, allowed, 20, -1.0),
        lambda q, v: snapshot.sparse_ranking(q, allowed, 20),
        # The whole query after the embedding: scope bitmap, both retrievers, fusion, the
        # feedback's second BM25 pass and fusion (its three texts from memory here).
        lambda q, v: snapshot.search(q, v, allowed_documents, 7, -1.0, texts=text_of),
    ]
    dense, keyword, hybrid, float32 = time_queries(snapshot, rows, allowed, functions, queries)
    scaled = " (scaled)" if n > FLOAT32_CHUNKS else ""
    recall = "–" if DENSE_ONLY else f"{measure_recall(snapshot, rows, allowed, dim):.4f}"
    speed = (
        f"| {n:,} | {dim} | {build:.1f} s | {median(float32):.1f} / {p95(float32):.1f}{scaled} | "
        f"{median(dense):.1f} / {p95(dense):.1f} | {median(dense) / median(float32):.2f}× | "
        f"{recall} | {median(keyword):.1f} / {p95(keyword):.1f} | {median(hybrid):.1f} / "
        f"{p95(hybrid):.1f} | {median(hybrid) / (median(dense) + median(keyword)):.2f}× |"
    )
    if DENSE_ONLY:
        return speed, ""
    memory = measure_storage(snapshot)
    INDEX_UPDATES.append(measure_update(snapshot, dim))
    return speed, memory


def time_queries(snapshot: Snapshot, rows: Rows, allowed, functions, queries) -> list:
    """The functions' times and the float32 scan's, interleaved; above FLOAT32_CHUNKS the
    float32 scan runs over the first FLOAT32_CHUNKS chunks and its times are scaled up."""
    n = min(len(snapshot), FLOAT32_CHUNKS)
    vectors = np.concatenate([rows.block(b) for b in range(-(-n // BLOCK))])
    starts, visible = snapshot.starts[:n], allowed[:n]
    functions = [*functions, lambda q, v: float32_ranking(vectors, starts, visible, v, 20)]
    pairs = list(zip(queries, unit_vectors(QUERIES, snapshot.dim), strict=True))
    times = interleaved(
        functions, pairs, ROUNDS if len(snapshot) <= FLOAT32_CHUNKS else ROUNDS_LARGE
    )
    scale = len(snapshot) / n
    return [*times[:-1], [time * scale for time in times[-1]]]


def measure_recall(snapshot: Snapshot, rows: Rows, allowed: np.ndarray, dim: int) -> float:
    queries = unit_vectors(RECALL_QUERIES, dim)
    exact = exact_top(rows, allowed, queries)
    found = sum(
        len(set(snapshot.dense_ranking(v, allowed, 7, -1.0).tolist()) & set(row.tolist()))
        for v, row in zip(queries, exact, strict=True)
    )
    return found / exact.size


def held_bytes(snapshot: Snapshot) -> tuple[int, int]:
    """Bytes of the dense rows, and of the whole snapshot's arrays."""
    dense = snapshot.dense.ntotal * snapshot.dense.code_size
    arrays = [
        snapshot.ids,
        snapshot.document_ids,
        snapshot.starts,
        snapshot.vector_rows,
        snapshot.doc_len,
        snapshot.document_codes,
        snapshot.idf,
        snapshot.length_norm,
        snapshot.postings.data,
        snapshot.postings.indices,
        snapshot.postings.indptr,
    ]
    return dense, dense + sum(array.nbytes for array in arrays)


def measure_storage(snapshot: Snapshot) -> str:
    mib = 2**20
    dense, total = held_bytes(snapshot)
    float32 = 2 * dense
    with tempfile.TemporaryDirectory(prefix="bench-snapshot-") as directory:
        start = time.perf_counter()
        store.save(snapshot, Path(directory))
        save = time.perf_counter() - start
        size = (Path(directory) / store.FILE_NAME).stat().st_size
        start = time.perf_counter()
        loaded = store.load(Path(directory))
        load = time.perf_counter() - start
        assert loaded is not None and len(loaded) == len(snapshot)
        loaded = None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10  # KiB on Linux
    return (
        f"| {len(snapshot):,} | {snapshot.dim} | {dense / mib:,.0f} / {float32 / mib:,.0f} MiB | "
        f"{total / mib:,.0f} / {(total + float32 - dense) / mib:,.0f} MiB "
        f"({total / (total + float32 - dense):.2f}×) | {size / mib:,.0f} / "
        f"{(size + float32 - dense) / mib:,.0f} MiB | {save:.1f} / {load:.1f} s | {peak:,.0f} MiB |"
    )


INDEX_UPDATES: list[tuple[int, int, dict[int, float]]] = []  # (chunks, dim, {added: seconds})
EMBED_CHUNKS = 1000  # chunks embedded through the fake model server
UPDATE_SIZES = (50, 1000)  # one document; many documents between two searches


def measure_update(snapshot: Snapshot, dim: int) -> tuple[int, int, dict[int, float]]:
    """Seconds to bring the snapshot up to date with a few new chunks (one copy of the rest)."""
    texts = make_texts(max(UPDATE_SIZES))
    seconds = {}
    for count in UPDATE_SIZES:
        rows = Rows(texts[:count], dim, first_id=10**9)
        start = time.perf_counter()
        snapshot.changed(2, add=rows)
        seconds[count] = time.perf_counter() - start
        gc.collect()
    return len(snapshot), dim, seconds


def ingestion() -> str:
    """Chunks a second into the index: embedded as ingestion does (5 at a time, with their
    sentence windows) by the fake model server, then added to a snapshot of each size."""
    from django.conf import settings

    words = make_texts(EMBED_CHUNKS)
    texts = [". ".join(" ".join(t.split()[i : i + 15]) for i in range(0, 120, 15)) for t in words]
    with FakeOllama() as server:
        settings.OLLAMA_HOST = server.url
        settings.EMBEDDING_BACKEND = "ollama"
        settings.OLLAMA_BACKOFF_SECONDS = 0
        embedding.chunk_vectors(texts[:5])  # the gateway's dimension probe, once
        start = time.perf_counter()
        made = [embedding.chunk_vectors(texts[i : i + 5]) for i in range(0, len(texts), 5)]
        embed = (time.perf_counter() - start) / len(texts)
    per_chunk = sum(len(v) for batch in made for v in batch) / len(texts)
    lines = [
        "\n## Ingestion into the index\n",
        f"Embedding through the fake model server (`apps/llm/tests/fake_ollama.py`, no model "
        f"time): {1 / embed:,.0f} chunks/s, {per_chunk:.1f} vectors per chunk, 5 chunks a "
        "request as ingestion sends them. Adding new chunks to a snapshot of each size (the "
        "search after ingestion does it once for everything ingested since the last search); "
        "chunks/s end to end = embedding + adding.\n",
        "| chunks | dim | added | adding | chunks/s into the index | end to end |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for n, dim, seconds in INDEX_UPDATES:
        for count, spent in seconds.items():
            lines.append(
                f"| {n:,} | {dim} | {count:,} | {spent:.2f} s | {count / spent:,.0f} | "
                f"{count / (spent + count * embed):,.0f} |"
            )
    return "\n".join(lines)


def compare_bm25(n: int, texts: list[str], queries: list[str]) -> str:
    lines = []
    dim = 4  # vectors do not matter here

    def ours():
        rows = [(i + 1, 1, texts[i], np.ones(dim, np.float32) / 2) for i in range(n)]
        snapshot = Snapshot.empty(1, "bench", dim).changed(1, add=rows)
        snapshot.dense.reset()  # count the keyword half only
        return snapshot

    snapshot, *ours = measure_memory(ours)
    ours_times = timed(lambda q: snapshot.sparse_ranking(q, None, 20), args=[(q,) for q in queries])
    snapshot = None  # free it before the next build
    retriever, *bm25s_figures = measure_memory(lambda: _bm25s(texts))
    s_tokens = [bm25s.tokenize([q], stopwords=None, show_progress=False) for q in queries]
    s_times = timed(
        lambda t: retriever.retrieve(t, k=20, show_progress=False), args=[(t,) for t in s_tokens]
    )
    retriever = None
    # rank-bm25 needs the token lists; building them is part of its cost, as for the others.
    okapi, *okapi_figures = measure_memory(lambda: BM25Okapi([tokenize(text) for text in texts]))
    r_times = timed(
        lambda t: np.argpartition(-okapi.get_scores(t), 20)[:20],
        repeat=min(QUERIES, 10),
        args=[(tokenize(q),) for q in queries],
    )
    okapi = None
    gc.collect()
    r_held, r_peak = okapi_figures[1], okapi_figures[2]
    for name, (build, held, peak), times in (
        ("rank-bm25 `get_scores`", okapi_figures, r_times),
        ("bm25s (its own tokenizer)", bm25s_figures, s_times),
        ("ours: scipy CSC, BM25 at query time (**kept**)", ours, ours_times),
    ):
        lines.append(
            f"| {n:,} | {name} | {build:.1f} s | {held:.0f} MiB ({held / r_held:.2f}) | "
            f"{peak:.0f} MiB ({peak / r_peak:.2f}) | {median(times):.2f} / {p95(times):.2f} ms | "
            f"{median(r_times) / median(times):.0f}× |"
        )
    return "\n".join(lines)


def _bm25s(texts: list[str]):
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords=None, show_progress=False), show_progress=False)
    return retriever


if __name__ == "__main__":
    main()
