"""Retrieval speed: index build, dense / BM25 / hybrid query latency with the approximate index
and with the exact scan it replaces above its threshold, recall, adding documents to a large
index, the memory of several searching processes, and BM25 implementations.

Synthetic chunks (Zipf-distributed words, some German-style compounds and identifiers) with
clustered L2-normalised vectors (each document near one of TOPICS topics, each chunk near its
document's topic, each sentence window near its chunk), as real embeddings are: a question is
near its passage, and passages of one subject are near each other. No model is needed.
Everything is measured side by side in one run. BENCH_CHUNKS (default "10000,200000") and
BENCH_DIMS ("384") choose the sizes; BENCH_CHUNKS=1000000 is the million-passage run.

The vectors are made 10k chunks at a time from a seed per block, so no size holds them all in
float32: recall@7 is of the exact float32 max-sim top 7, computed block by block, on
RECALL_QUERIES questions in a scope of ~90 % of the chunks and in one of 1 %.
"""

import gc
import os
import statistics
import subprocess
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


from apps.vault.search import ann, store  # noqa: E402
from apps.vault.search import segment as segment_module  # noqa: E402
from apps.vault.search.snapshot import Snapshot  # noqa: E402
from apps.vault.tokenize import tokenize  # noqa: E402
from bench.processes import rollup  # noqa: E402

SIZES = [int(n) for n in os.environ.get("BENCH_CHUNKS", "10000,200000").split(",")]
DIMS = [int(d) for d in os.environ.get("BENCH_DIMS", "384").split(",")]
# Vectors per chunk: its own and its sentence windows; 5.0 on average over the retrieval
# evaluation's chunks (bench/retrieval_eval/), so 5 here.
VECTORS = 5
QUERIES = 40
ROUNDS = 5  # each query this many times, interleaved
ROUNDS_LARGE = 1  # above LARGE chunks, where the exact scan takes seconds
LARGE = 200_000
RECALL_QUERIES = 200
BM25_CHUNKS = int(os.environ.get("BENCH_BM25_CHUNKS", "200000"))  # rank-bm25 and bm25s up to
BLOCK = 10_000  # chunks whose vectors are made at a time
CHUNKS_PER_DOCUMENT = 50
TOPICS = 2000  # subjects a school's documents are about
CHUNK_SPREAD = 1.0  # a chunk's distance from its topic, windows' from their chunk, a
WINDOW_SPREAD = 0.5  # question's from its passage (norms of the noise added to unit vectors)
QUESTION_SPREAD = 0.8
PROCESSES = 5  # the searching processes of `make run`: two web, two chat, one jobs worker
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

    A block's vectors come from its own seed, so they are cheap to make again for the exact
    top 7: each chunk near its document's topic, its windows near it (VECTORS rows a chunk).
    """

    def __init__(self, texts: list[str], dim: int, first_id: int = 1) -> None:
        self.texts, self.dim, self.first_id = texts, dim, first_id
        self.topics = unit_vectors(TOPICS, dim)
        self.cached: tuple[int, np.ndarray] = (-1, self.topics)

    def __len__(self) -> int:
        return len(self.texts)

    def document(self, i: int) -> int:
        return (self.first_id + i) // CHUNKS_PER_DOCUMENT

    def block(self, b: int) -> np.ndarray:
        """The float32 vectors of chunks b × BLOCK onwards, VECTORS rows per chunk."""
        if self.cached[0] != b:
            first = b * BLOCK
            size = min(BLOCK, len(self) - first)
            made = np.random.default_rng((self.dim, self.first_id, b))
            documents = (self.first_id + np.arange(first, first + size)) // CHUNKS_PER_DOCUMENT
            topics = self.topics[(documents * 7919) % TOPICS]
            chunks = normalised(topics + noise(made, (size, self.dim), CHUNK_SPREAD))
            vectors = chunks[:, None, :] + noise(made, (size, VECTORS, self.dim), WINDOW_SPREAD)
            vectors[:, 0] = chunks
            self.cached = (b, normalised(vectors).reshape(-1, self.dim))
        return self.cached[1]

    def __getitem__(self, i: int) -> tuple[int, int, str, np.ndarray]:
        if not 0 <= i < len(self):
            raise IndexError(i)
        b, r = divmod(i, BLOCK)
        vectors = self.block(b)[r * VECTORS : (r + 1) * VECTORS]
        return self.first_id + i, self.document(i), self.texts[i], vectors

    def questions(self, count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
        """`count` question vectors, each near a random chunk's own vector, and those chunks."""
        asked = np.sort(np.random.default_rng(seed).choice(len(self), count, replace=False))
        made = np.random.default_rng(seed + 1)
        own = np.stack([self.block(i // BLOCK)[(i % BLOCK) * VECTORS] for i in asked])
        questions = normalised(own + noise(made, own.shape, QUESTION_SPREAD))
        order = made.permutation(count)
        return questions[order], asked[order]


def noise(made: np.random.Generator, shape: tuple, spread: float) -> np.ndarray:
    """Gaussian noise of norm ~`spread` per vector."""
    return made.standard_normal(shape, dtype=np.float32) * (spread / np.sqrt(shape[-1]))


def normalised(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.linalg.norm(vectors, axis=-1, keepdims=True)


def main() -> None:
    if sys.argv[1:2] == ["--search-in"]:
        search_and_wait(Path(sys.argv[2]))
        return
    queries = make_queries()
    speed, memory, bm25_out = [], [], []
    for n in SIZES:
        texts = make_texts(n)
        for dim in DIMS:
            figures = measure_size(texts, dim, queries)
            speed.append(figures[0])
            memory.append(figures[1])
            gc.collect()
        if n <= BM25_CHUNKS:
            bm25_out.append(compare_bm25(n, texts, queries))
        texts = None
        gc.collect()
    print_tables(speed, memory, bm25_out)
    print(ingestion())


def print_tables(speed: list[str], memory: list[str], bm25_out: list[str]) -> None:
    print("## Retrieval (apps/vault/search/)\n")
    print(f"Latency in ms as median / p95 over {QUERIES} questions × {ROUNDS} rounds ")
    print(f"({ROUNDS_LARGE} above {LARGE:,} chunks), interleaved question by question; one faiss")
    print(f"thread. {VECTORS} vectors per chunk (its own and its sentence windows, scored by the")
    print("best). exact: the float16 scan of every vector in scope, as dense ran before the")
    print(f"approximate index (which a segment of ≥ {ann.MIN_VECTORS:,} vectors has). dense and")
    print("hybrid (without the question's embedding): as the app runs them. Scopes: ~90 % of the")
    print("chunks (the class's documents and a student's own), and 1 % (a few documents).")
    print(f"recall@7: of the exact float32 max-sim top 7, {RECALL_QUERIES} questions. Build:")
    print("tokenizing, writing the segment, training and filling its approximate index.\n")
    print(
        "| chunks | dim | build | exact, 90 % | dense, 90 % (p95 ≤ 50) | recall@7 (≥ 0.98) "
        "| exact, 1 % | dense, 1 % | recall@7, 1 % | BM25 | hybrid (p95 ≤ 80) |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    print("\n".join(speed))
    print("\n## Files and memory of the index\n")
    print("MiB of a segment's files (the float16 vectors, the approximate index, the postings")
    print(f"and row arrays), mapping them; then {PROCESSES} processes that each map the index")
    print("and search it (a whole exact scan and 40 questions, so every page is read): the")
    print("largest RSS of one, and the sums of their RSS and PSS (the page cache's shared pages")
    print("counted once, split among the processes that map them).\n")
    print(
        "| chunks | dim | vectors / approximate / postings and rows | map | one process RSS "
        f"| {PROCESSES} processes RSS | PSS | PSS ÷ one (≤ 1.3) |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    print("\n".join(memory))
    if bm25_out:
        print("\n## BM25 implementations on the same chunks (full scoring + top 20)\n")
        print("Memory: MiB held by the built index, and peak while building it from the texts;")
        print("in brackets the ratio to rank-bm25 (target ≤ 0.2). Ours holds its postings in a")
        print("mapped file, counted as held. Build times under tracemalloc.\n")
        print(
            "| chunks | implementation | build | held | peak | query median / p95 | vs rank-bm25 |"
        )
        print("| ---: | --- | ---: | ---: | ---: | ---: | ---: |")
        print("\n".join(bm25_out))


def exact_top(rows: Rows, scopes: list[np.ndarray], queries: np.ndarray, k: int = 7) -> list:
    """For each scope (a bitmap over rows), each query's exact float32 top k chunk rows
    (max-sim), block by block."""
    best = [np.full((len(queries), 0), -np.inf, np.float32) for _ in scopes]
    best_rows = [np.zeros((len(queries), 0), np.int64) for _ in scopes]
    for b in range(-(-len(rows) // BLOCK)):
        scores = (rows.block(b) @ queries.T).reshape(-1, VECTORS, len(queries)).max(axis=1)
        first = b * BLOCK
        numbers = np.broadcast_to(
            np.arange(first, first + len(scores)), (len(queries), len(scores))
        )
        for i, allowed in enumerate(scopes):
            scoped = np.where(allowed[first : first + len(scores), None], scores, -np.inf)
            joined = np.concatenate([best[i], scoped.T], axis=1)
            joined_rows = np.concatenate([best_rows[i], numbers], axis=1)
            keep = np.argsort(-joined, axis=1, kind="stable")[:, :k]
            best[i] = np.take_along_axis(joined, keep, axis=1)
            best_rows[i] = np.take_along_axis(joined_rows, keep, axis=1)
    return best_rows


def exact_dense(snapshot: Snapshot, vector: np.ndarray, allowed, n: int) -> np.ndarray:
    """The float16 scan of every vector in scope, segment by segment (dense before the
    approximate index)."""
    rows, scores = [np.zeros(0, np.int64)], [np.zeros(0, np.float32)]
    for segment, start, end in snapshot.spans():
        scoped = None if allowed is None else allowed[start:end]
        wanted = min(n, len(segment) if scoped is None else int(scoped.sum()))
        if wanted:
            found, best = segment.scan(vector, segment.vector_runs(scoped), wanted, n)
            rows.append(found + start)
            scores.append(best)
    rows, scores = np.concatenate(rows), np.concatenate(scores)
    return rows[np.argsort(-scores, kind="stable")[:n]]


def measure_size(texts: list[str], dim: int, queries: list[str]) -> tuple[str, str]:
    n = len(texts)
    rows = Rows(texts, dim)
    start = time.perf_counter()
    snapshot = Snapshot.empty(1, "bench", dim).changed(1, add=rows)
    build = time.perf_counter() - start
    # Visibility: the class documents plus one student's own (~90 % of the chunks), and a
    # narrow scope of 1 % of the documents (a few chosen for a quiz).
    row_documents = snapshot.document_ids()
    documents = np.unique(row_documents)
    wide_documents = documents[documents % 10 != 3]
    narrow_documents = np.sort(
        np.random.default_rng(7).choice(documents, max(1, len(documents) // 100), replace=False)
    )
    wide = np.isin(row_documents, wide_documents)
    narrow = np.isin(row_documents, narrow_documents)

    def text_of(chunk_ids: list[int]) -> list[str]:
        return [texts[chunk_id - 1] for chunk_id in chunk_ids]

    functions = [
        lambda q, v: exact_dense(snapshot, v, wide, 20),
        lambda q, v: snapshot.dense_ranking(v, wide, 20, -1.0),
        lambda q, v: exact_dense(snapshot, v, narrow, 20),
        lambda q, v: snapshot.dense_ranking(v, narrow, 20, -1.0),
        lambda q, v: snapshot.sparse_ranking(q, wide, 20),
        # The whole query after the embedding: scope bitmap, both retrievers, fusion, the
        # feedback's second BM25 pass and fusion (its three texts from memory here).
        lambda q, v: snapshot.search(q, v, wide_documents, 7, -1.0, texts=text_of),
    ]
    vectors, _ = rows.questions(QUERIES, seed=11)
    pairs = list(zip(queries, vectors, strict=True))
    times = interleaved(functions, pairs, ROUNDS if n <= LARGE else ROUNDS_LARGE)
    exact, dense, exact_narrow, dense_narrow, keyword, hybrid = (
        f"{median(t):.1f} / {p95(t):.1f}" for t in times
    )
    questions, _ = rows.questions(RECALL_QUERIES, seed=13)
    tops = exact_top(rows, [wide, narrow], questions)
    recall, recall_narrow = (
        np.mean(
            [
                len(set(snapshot.dense_ranking(v, allowed, 7, -1.0).tolist()) & set(top.tolist()))
                / len(top)
                for v, top in zip(questions, top_rows, strict=True)
            ]
        )
        for allowed, top_rows in ((wide, tops[0]), (narrow, tops[1]))
    )
    speed = (
        f"| {n:,} | {dim} | {build:.1f} s | {exact} | {dense} | {recall:.4f} | {exact_narrow} | "
        f"{dense_narrow} | {recall_narrow:.4f} | {keyword} | {hybrid} |"
    )
    memory = measure_storage(snapshot)
    INDEX_UPDATES.append(measure_update(snapshot, dim, vectors[0]))
    return speed, memory


def measure_storage(snapshot: Snapshot) -> str:
    """The segment's files, mapping them, and PROCESSES processes searching them at once."""
    mib = 2**20
    [segment] = snapshot.segments
    sizes = [
        (segment.folder / name).stat().st_size if (segment.folder / name).exists() else 0
        for name in (segment_module.VECTORS_FILE, ann.FILE_NAME, segment_module.ARRAYS_FILE)
    ]
    start = time.perf_counter()
    segment_module.Segment(segment.folder)
    mapping = time.perf_counter() - start
    one, rss, pss = processes_memory(snapshot)
    files = " / ".join(f"{size / mib:,.0f}" for size in sizes)
    return (
        f"| {len(snapshot):,} | {snapshot.dim} | {files} MiB | {mapping * 1000:.0f} ms | "
        f"{one / mib:,.0f} MiB | {rss / mib:,.0f} MiB | {pss / mib:,.0f} MiB | {pss / one:.2f}× |"
    )


def processes_memory(snapshot: Snapshot) -> tuple[int, int, int]:
    """(largest RSS, summed RSS, summed PSS) of PROCESSES processes searching the index."""
    store.save(snapshot, snapshot.folder, state=1)
    command = [sys.executable, __file__, "--search-in", str(snapshot.folder)]
    children = [
        subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for _ in range(PROCESSES)
    ]
    try:
        for child in children:
            if child.stdout.readline().strip() != "ready":  # each has searched: wait on it
                raise RuntimeError("a searching process ended early")
        figures = [rollup(child.pid) for child in children]
    finally:
        for child in children:
            child.stdin.close()
            child.wait()
    return (
        max(f["Rss"] for f in figures),
        sum(f["Rss"] for f in figures),
        sum(f["Pss"] for f in figures),
    )


def search_and_wait(folder: Path) -> None:
    """A searching process: map the index as the app does, scan it all once and answer
    40 questions, say "ready", and hold on until the parent closes stdin."""
    loaded = store.load(folder)
    assert loaded is not None, f"no index in {folder}"
    snapshot = loaded[0]
    made = np.random.default_rng(3)
    exact_dense(snapshot, normalised(made.standard_normal(snapshot.dim)), None, 20)
    for query in make_queries():
        vector = normalised(made.standard_normal(snapshot.dim).astype(np.float32))
        snapshot.search(query, vector, None, 7, -1.0)
    print("ready", flush=True)
    sys.stdin.read()


INDEX_UPDATES: list[tuple[int, int, dict[int, tuple[float, float]]]] = []
EMBED_CHUNKS = 1000  # chunks embedded through the fake model server
UPDATE_SIZES = (50, 1000)  # one document; many documents between two searches


def measure_update(
    snapshot: Snapshot, dim: int, question: np.ndarray
) -> tuple[int, int, dict[int, tuple[float, float]]]:
    """Seconds to add a few new chunks to the index (a new segment beside the others), and
    until the first search after it has answered."""
    texts = make_texts(max(UPDATE_SIZES))
    seconds = {}
    for count in UPDATE_SIZES:
        rows = Rows(texts[:count], dim, first_id=10**9)
        start = time.perf_counter()
        updated = snapshot.changed(2, add=rows)
        added = time.perf_counter() - start
        updated.search(texts[0][:40], question, None, 7, -1.0)
        seconds[count] = (added, time.perf_counter() - start)
        gc.collect()
    return len(snapshot), dim, seconds


def ingestion() -> str:
    """Chunks a second into the index: embedded as ingestion does (5 at a time, with their
    sentence windows) by the fake model server, then added to a snapshot of each size."""
    from django.conf import settings

    from apps.llm.tests.fake_ollama import FakeOllama
    from apps.vault import embedding

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
        "request as ingestion sends them. Adding new chunks to an index of each size: the "
        "worker writes them as a new segment when the ingestion commits (merged into the others "
        "later, in the background); searchable: until the first search after it has answered. "
        "chunks/s end to end = embedding + adding.\n",
        "| chunks | dim | added | adding | searchable after (≤ 0.5 s for 50, ≤ 2 s for 1,000) "
        "| chunks/s into the index | end to end |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for n, dim, seconds in INDEX_UPDATES:
        for count, (spent, searchable) in seconds.items():
            lines.append(
                f"| {n:,} | {dim} | {count:,} | {spent:.2f} s | {searchable:.2f} s | "
                f"{count / spent:,.0f} | {count / (spent + count * embed):,.0f} |"
            )
    return "\n".join(lines)


def compare_bm25(n: int, texts: list[str], queries: list[str]) -> str:
    # Imported here: the searching processes of `processes_memory` hold only what the app holds.
    import bm25s
    from rank_bm25 import BM25Okapi

    lines = []
    dim = 4  # vectors do not matter here

    def ours():
        rows = [(i + 1, 1, texts[i], np.ones(dim, np.float32) / 2) for i in range(n)]
        return Snapshot.empty(1, "bench", dim).changed(1, add=rows)

    snapshot, build, held, peak = measure_memory(ours)
    mapped = (snapshot.segments[0].folder / segment_module.ARRAYS_FILE).stat().st_size / 2**20
    ours = (build, held + mapped, peak)
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
        ("ours: mapped CSC arrays, BM25 at query time (**kept**)", ours, ours_times),
    ):
        lines.append(
            f"| {n:,} | {name} | {build:.1f} s | {held:.0f} MiB ({held / r_held:.2f}) | "
            f"{peak:.0f} MiB ({peak / r_peak:.2f}) | {median(times):.2f} / {p95(times):.2f} ms | "
            f"{median(r_times) / median(times):.0f}× |"
        )
    return "\n".join(lines)


def _bm25s(texts: list[str]):
    import bm25s

    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords=None, show_progress=False), show_progress=False)
    return retriever


if __name__ == "__main__":
    main()
