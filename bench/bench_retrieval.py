"""Retrieval speed: index build, dense / BM25 / hybrid query latency, and BM25 implementations.

Synthetic chunks (Zipf-distributed words, some German-style compounds and identifiers) with
random L2-normalised vectors; no model is needed. Everything is measured side by side in one
run. BENCH_CHUNKS (default "10000,100000") and BENCH_DIMS ("384,768") choose the sizes.
"""

import gc
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cognivault_site.settings")
os.environ.setdefault("DATA_DIR", tempfile.mkdtemp(prefix="bench-retrieval-"))

import django  # noqa: E402

django.setup()

import bm25s  # noqa: E402
from rank_bm25 import BM25Okapi  # noqa: E402

from apps.vault.search.snapshot import Snapshot  # noqa: E402
from apps.vault.tokenize import tokenize  # noqa: E402

SIZES = [int(n) for n in os.environ.get("BENCH_CHUNKS", "10000,100000").split(",")]
DIMS = [int(d) for d in os.environ.get("BENCH_DIMS", "384,768").split(",")]
# Vectors per chunk: its own and its sentence windows; 5.0 on average over the retrieval
# evaluation's chunks (bench/retrieval_eval/), so 5 here. BENCH_VECTORS=1 is one per chunk.
VECTORS = int(os.environ.get("BENCH_VECTORS", "5"))
QUERIES = 40
ROUNDS = 5  # each query this many times, interleaved
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
    picks = rng.choice(len(VOCABULARY), size=(n, WORDS_PER_CHUNK), p=ZIPF)
    return [" ".join(VOCABULARY[i] for i in row) for row in picks]


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


def main() -> None:
    queries = make_queries()
    rows_out = []
    bm25_out = []
    for n in SIZES:
        texts = make_texts(n)
        for dim in DIMS:
            rows_out.append(measure_size(texts, dim, queries))
            gc.collect()
        bm25_out.append(compare_bm25(n, texts, queries))
        gc.collect()

    print("## Retrieval (apps/vault/search/)\n")
    print(f"Latency in ms as median / p95 over {QUERIES} queries × {ROUNDS} rounds, the four")
    print("measurements interleaved query by query; one faiss thread; ~90 % of chunks visible")
    print("(the scope bitmap is applied inside both scans). Build: tokenizing and indexing.")
    print(f"{VECTORS} vectors per chunk (its own and its sentence windows, scored by the best);")
    print("numpy `X @ q` scans all of them, as dense does before taking each chunk's best.\n")
    print(
        "| chunks | dim | build | numpy `X @ q` | dense | dense ÷ numpy (≤ 1.2) | BM25 "
        "| hybrid (no embedding) | hybrid ÷ (dense + BM25) (≤ 1.3) |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    print("\n".join(rows_out))
    print("\n## BM25 implementations on the same chunks (full scoring + top 20)\n")
    print("Memory: MiB held by the built index, and peak while building it from the texts;")
    print("in brackets the ratio to rank-bm25 (target ≤ 0.2). Build times under tracemalloc.\n")
    print("| chunks | implementation | build | held | peak | query median / p95 | vs rank-bm25 |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    print("\n".join(bm25_out))


def measure_size(texts: list[str], dim: int, queries: list[str]) -> str:
    n = len(texts)
    documents = np.arange(n) // 50  # 50 chunks per document
    vectors = unit_vectors(n * VECTORS, dim)
    rows = [
        (i + 1, int(documents[i]), texts[i], vectors[i * VECTORS : (i + 1) * VECTORS])
        for i in range(n)
    ]
    start = time.perf_counter()
    snapshot = Snapshot.empty(1, "bench", dim).changed(1, add=rows)
    build = time.perf_counter() - start
    # Visibility: the class documents plus one student's own (~90 % of the chunks).
    allowed_documents = np.unique(documents)[np.unique(documents) % 10 != 3]
    allowed = np.isin(snapshot.document_ids, allowed_documents)
    query_vectors = unit_vectors(QUERIES, dim)

    def text_of(chunk_ids: list[int]) -> list[str]:
        return [texts[chunk_id - 1] for chunk_id in chunk_ids]

    raw, dense, keyword, hybrid = interleaved(
        [
            lambda q, v: np.argpartition(-(vectors @ v), 20)[:20],
            lambda q, v: snapshot.dense_ranking(v, allowed, 20, -1.0),
            lambda q, v: snapshot.sparse_ranking(q, allowed, 20),
            # The whole query after the embedding: scope bitmap, both retrievers, fusion, the
            # feedback's second BM25 pass and fusion (its three texts from memory here).
            lambda q, v: snapshot.search(q, v, allowed_documents, 7, -1.0, texts=text_of),
        ],
        list(zip(queries, query_vectors, strict=True)),
    )
    return (
        f"| {n:,} | {dim} | {build:.1f} s | {median(raw):.1f} | {median(dense):.1f} / "
        f"{p95(dense):.1f} | {median(dense) / median(raw):.2f}× | {median(keyword):.1f} / "
        f"{p95(keyword):.1f} | {median(hybrid):.1f} / {p95(hybrid):.1f} | "
        f"{median(hybrid) / (median(dense) + median(keyword)):.2f}× |"
    )


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
