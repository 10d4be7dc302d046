"""Retrieval quality: recall@1/3/7 and MRR per question kind, for each variant side by side.

The evaluation (bench/retrieval_eval/) is real, openly licensed documents in English and German,
made into PDF, DOCX, Markdown, HTML, text and a scanned PDF and read back by the app's own
extractors, with the real embedded sentence encoder. A variant changes one thing against the
default pipeline; its build cost is the embedding and indexing of the whole corpus, its memory
the dense vectors and BM25 postings it holds.
"""

import os
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cognivault_site.settings")
os.environ.setdefault("DATA_DIR", tempfile.mkdtemp(prefix="bench-quality-"))
os.environ.setdefault("EMBEDDING_BACKEND", "embedded")

import django  # noqa: E402

django.setup()

from apps.llm import gateway  # noqa: E402
from apps.vault import chunking, index  # noqa: E402
from apps.vault.chunking import split_text  # noqa: E402
from apps.vault.index import Snapshot  # noqa: E402
from bench.retrieval_eval import answers, questions, sources, units  # noqa: E402

KS = (1, 3, 7)
DEPTH = 20  # ranks looked at for MRR


@dataclass(frozen=True)
class Variant:
    name: str
    size: int = chunking.CHUNK_SIZE
    overlap: int = chunking.CHUNK_OVERLAP
    window: int | None = chunking.WINDOW_CHARS  # shortest window; None: no windows
    chunk_vector: bool = True  # the chunk's own vector besides its windows
    settings: tuple = ()  # (module, name, value) to set while it runs
    retrievers: str = "hybrid"  # or "dense", "bm25", "z-score" (score fusion, not RRF)


VARIANTS = [
    Variant("before: one vector per chunk", window=None),
    Variant("before, dense only", window=None, retrievers="dense"),
    Variant("BM25 only", window=None, retrievers="bm25"),
    Variant("chunk + windows of ≥ 150 characters, max-sim (**kept**)"),
    Variant("windows only, no chunk vector", chunk_vector=False),
    Variant("dense only, max-sim", retrievers="dense"),
    Variant("windows of single sentences", window=1),
    Variant("windows of ≥ 80 characters", window=80),
    Variant("windows of ≥ 250 characters", window=250),
    Variant("windows of ≥ 400 characters", window=400),
    Variant("max-sim, chunks 500/50", size=500, overlap=50),
    Variant("max-sim, chunks 1500/150", size=1500, overlap=150),
    Variant("max-sim, no compound matching", settings=((index, "MAX_EXPANSIONS", 0),)),
    Variant("max-sim, RRF dense ×1.5", settings=((index, "DENSE_WEIGHT", 1.5),)),
    Variant("max-sim, RRF BM25 ×1.5", settings=((index, "SPARSE_WEIGHT", 1.5),)),
    Variant("max-sim, 10 candidates each", settings=((index, "MIN_CANDIDATES", 10),)),
    Variant("max-sim, 40 candidates each", settings=((index, "MIN_CANDIDATES", 40),)),
    Variant("max-sim, RRF k = 20", settings=((index, "RRF_K", 20),)),
    Variant("max-sim, z-scores 0.6 dense + 0.4 BM25 instead of RRF", retrievers="z-score"),
]
Z_DENSE = 0.6


def chunks_of(size: int, overlap: int) -> list[tuple[int, str]]:
    """(document number, chunk text) as the chunk step cuts them, at this size and overlap."""
    found = []
    for number, source in enumerate(sources(), 1):
        for unit in units(source):
            prefix = unit["prefix"]
            bodies = (
                split_text(unit["text"], size - len(prefix), overlap)
                if unit["split"]
                else [unit["text"].strip()]
            )
            found.extend(
                (number, prefix + body) for body in bodies if len(body) >= unit["min_chars"]
            )
    return found


_vectors: dict[str, np.ndarray] = {}


def embed(texts: list[str]) -> np.ndarray:
    missing = [text for text in dict.fromkeys(texts) if text not in _vectors]
    if missing:
        _vectors.update(zip(missing, gateway.embed(missing), strict=True))
    return np.stack([_vectors[text] for text in texts]) if texts else np.zeros((0, 512))


def build(variant: Variant) -> tuple[Snapshot, dict[int, str], float]:
    """The snapshot of the corpus for this variant, its chunk texts, and seconds to build it
    from the texts (embedding every chunk and window, tokenizing, indexing)."""
    chunks = chunks_of(variant.size, variant.overlap)
    started = time.perf_counter()
    texts_per_chunk = []
    for _, text in chunks:
        own = [text] if variant.chunk_vector or variant.window is None else []
        parts = chunking.windows(text, variant.window) if variant.window else []
        texts_per_chunk.append((own + parts) or [text])
    flat = [text for texts in texts_per_chunk for text in texts]
    _vectors.clear()  # each variant pays for its own embeddings
    vectors = embed(flat)
    rows, position = [], 0
    for chunk_id, ((document, text), texts) in enumerate(
        zip(chunks, texts_per_chunk, strict=True), 1
    ):
        rows.append((chunk_id, document, text, vectors[position : position + len(texts)]))
        position += len(texts)
    snapshot = Snapshot.empty(1, "bench", vectors.shape[1]).changed(1, add=rows)
    seconds = time.perf_counter() - started
    return snapshot, {chunk_id: text for chunk_id, (_, text) in enumerate(chunks, 1)}, seconds


@contextmanager
def applied(settings: tuple):
    saved = [(module, name, getattr(module, name)) for module, name, _ in settings]
    for module, name, value in settings:
        setattr(module, name, value)
    try:
        yield
    finally:
        for module, name, value in saved:
            setattr(module, name, value)


def ranking(snapshot: Snapshot, variant: Variant, query: str, vector: np.ndarray) -> list[int]:
    if variant.retrievers == "dense":
        return snapshot.ids[snapshot.dense_ranking(vector, None, DEPTH, -1.0)].tolist()
    if variant.retrievers == "bm25":
        return snapshot.ids[snapshot.sparse_ranking(query, None, DEPTH)].tolist()
    if variant.retrievers == "z-score":
        # Each retriever's scores over every chunk as z-scores, then a weighted sum: unlike RRF
        # it keeps how far ahead a chunk is, not only its place.
        dense = np.maximum.reduceat(snapshot.vectors() @ vector, snapshot.starts)
        keyword = snapshot.bm25_scores(query)
        total = sum(
            weight * (scores - scores.mean()) / (scores.std() or 1.0)
            for weight, scores in ((Z_DENSE, dense), (1 - Z_DENSE, keyword))
        )
        return snapshot.ids[np.argsort(-total, kind="stable")[:DEPTH]].tolist()
    return [hit.chunk_id for hit in snapshot.search(query, vector, None, DEPTH, 0.1)]


def scores(found: Callable[[str], list[bool]], kind: str) -> str:
    hits = [
        found_
        for question in questions()
        if question.kind == kind
        for found_ in [found(question.id)]
    ]
    cells = [f"{np.mean([any(h[:k]) for h in hits]):.2f}" for k in KS]
    reciprocal = [next((1 / rank for rank, ok in enumerate(h, 1) if ok), 0.0) for h in hits]
    return " | ".join([*cells, f"{np.mean(reciprocal):.2f}"])


def main() -> None:
    asked = questions()
    query_vectors = dict(
        zip([q.id for q in asked], gateway.embed([q.text for q in asked]), strict=True)
    )
    print("## Retrieval quality (bench/retrieval_eval/, embedded USE multilingual embeddings)\n")
    counts = {kind: sum(q.kind == kind for q in asked) for kind in ("paraphrase", "identifier")}
    print(
        f"{len(asked)} questions over {len(sources())} documents: {counts['paraphrase']} worded "
        f"without the passage's key terms (paraphrase), {counts['identifier']} naming an exact "
        "term (identifier). Recall@k: the answering passage is in the top k; MRR over the top "
        f"{DEPTH}. Build: embedding and indexing the corpus; memory: vectors + postings held.\n"
    )
    print(
        "| variant | para R@1 | R@3 | R@7 | MRR | ident R@1 | R@3 | R@7 | MRR | chunks | "
        "vectors | build | memory |"
    )
    print("| --- |" + " ---: |" * 12)
    for variant in VARIANTS:
        snapshot, texts, seconds = build(variant)
        results: dict[str, list[bool]] = {}
        with applied(variant.settings):
            for question in asked:
                ids = ranking(snapshot, variant, question.text, query_vectors[question.id])
                results[question.id] = [answers(texts[chunk_id], question) for chunk_id in ids]
        memory = (
            snapshot.vectors().nbytes
            + sum(a.nbytes for a in (snapshot.postings.data, snapshot.postings.indices))
        ) / 2**20
        print(
            f"| {variant.name} | {scores(results.get, 'paraphrase')} | "
            f"{scores(results.get, 'identifier')} | {len(snapshot)} | {snapshot.dense.ntotal} | "
            f"{seconds:.1f} s | {memory:.1f} MiB |",
            flush=True,
        )


if __name__ == "__main__":
    main()
