"""Retrieval quality: recall@1/3/7 and MRR per question kind, for each variant side by side.

The evaluation (bench/retrieval_eval/) is real, openly licensed documents in English and German,
made into PDF, DOCX, Markdown, HTML, text and a scanned PDF and read back by the app's own
extractors, with the real embedded sentence encoder. A variant changes one thing against the
default pipeline; its build cost is the embedding and indexing of the whole corpus, its memory
the dense vectors and BM25 postings it holds. Figures are given for the tuning questions and,
apart, for the held-out fifth.

Vectors are cached on disk by model, side and text (BENCH_CACHE), so a second run embeds only
what changed; the build column then shows the embedding time measured when they were made.
BENCH_VARIANTS="word,other" runs only the variants whose name has one of the words.
"""

import hashlib
import os
import re
import sqlite3
import sys
import tempfile
import time
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
from apps.vault import chunking  # noqa: E402
from apps.vault.chunking import split_text  # noqa: E402
from apps.vault.search import ranking as search_ranking  # noqa: E402
from apps.vault.search import snapshot as snapshot_module  # noqa: E402
from apps.vault.search.snapshot import Snapshot  # noqa: E402
from apps.vault.tokenize import fold, query_terms, tokenize  # noqa: E402
from bench.retrieval_eval import CACHE, HEADING, answers, questions, sources, units  # noqa: E402

KS = (1, 3, 7)
DEPTH = 20  # ranks looked at for MRR
ASKED = 7  # what chat and search ask the index for: 7 chunks, so 20 candidates per retriever
MIN_SIMILARITY = 0.1
MODEL = "use-multilingual-v3"  # the cache's name for the embedded USE multilingual


# Leading question words (English and German), with the auxiliary and pronoun after them: what a
# question adds to the statement that answers it.
SCAFFOLDING = re.compile(
    r"^\s*(?:(?:what|which|how|why|when|where|who|whom|whose|is|are|does|do|did|can|could|"
    r"should|would|will|was|wie|welche[rsnm]?|warum|wann|wo|wer|wen|wem|wessen|wo[a-z]+|kann|"
    r"muss|darf|soll|gibt|ist|sind|hat|haben|werden|wird)\b\s*)+"
    r"(?:(?:i|you|it|they|we|my|the|a|an|es|ich|man|der|die|das|den|dem|ein|eine|einen|mein|"
    r"meine|there|much|many|long|often|far)\b\s*)*",
    re.IGNORECASE,
)
CLAUSE = re.compile(r",\s+|\s+(?:and|or|but|und|oder|aber|damit|wenn|ohne|statt|als)\s+")


def query_parts(question: str, how: str) -> list[str]:
    """The question and, for `how`, its parts: "stripped" without its leading question words,
    "clauses" cut at commas and conjunctions (parts of three words or more)."""
    if how == "stripped":
        rest = SCAFFOLDING.sub("", question).strip().rstrip("?").strip()
        return [question, rest] if rest else [question]
    parts = [p for p in CLAUSE.split(question.rstrip("?")) if len(p.split()) >= 3]
    return [question, *parts] if len(parts) > 1 else [question]


def stemming(*languages: str) -> tuple:
    """Settings that make the index's tokenizer stem each plain word (Snowball). The stemmer
    is not a dependency of the app: `pip install snowballstemmer` to run these rows."""
    stemmers: list = []

    def stem(word: str) -> str:
        if not stemmers:
            import snowballstemmer

            stemmers.extend(snowballstemmer.stemmer(language) for language in languages)
        for stemmer in stemmers:
            word = stemmer.stemWord(word)
        return word

    def stemmed(text: str) -> list[str]:
        return [stem(t) if t.isalpha() else t for t in tokenize(text)]

    return (
        (search_ranking, "tokenize", stemmed),
        (snapshot_module, "tokenize", stemmed),
        (search_ranking, "query_terms", lambda text: list(dict.fromkeys(stemmed(text)))),
    )


@dataclass(frozen=True)
class Variant:
    name: str
    size: int = chunking.CHUNK_SIZE
    overlap: int = chunking.CHUNK_OVERLAP
    window: int | None = chunking.WINDOW_CHARS  # shortest window; None: no windows
    chunk_vector: bool = True  # the chunk's own vector besides its windows
    settings: tuple = ()  # (module, name, value) to set while it runs
    retrievers: str = "hybrid"  # or "dense", "bm25", "z-score" (score fusion, not RRF)
    # Dense side.
    header: bool = False  # the heading the chunk sits under before each of its dense texts
    query_parts: str = ""  # "stripped", "clauses": more query vectors, a chunk scores the best
    prior: float = 0.0  # + prior × similarity of the query to the chunk's document (its mean)
    # Keyword side.
    sparse_window: int | None = None  # BM25 over windows of ≥ this many characters
    sparse_mix: float | None = None  # None: a chunk's BM25 is its best window's; else chunk + mix
    thesaurus: float = 0.0  # synonyms of the query words (mythes) at this weight
    # Pseudo-relevance feedback from the first fused top `feedback`, then RRF again.
    feedback: int = 3
    rocchio: float = 0.0  # dense: query + rocchio × mean of their best vectors
    rocchio_vector: str = "best"  # or "own": the chunks' own vectors
    pool: int = 0  # second dense pass only over the first pass's top `pool` chunks (0: all)
    rm3: float = 0.0  # BM25: their top terms added at this weight
    rm3_terms: int = 10
    rm3_share: bool = False  # the added terms weigh rm3 × the query's own terms in all
    rounds: int = 1  # feedback rounds, each read from the previous round's fused top
    by_rank: bool = False  # each feedback chunk's words weigh 1 / its fused rank
    words_only: bool = False  # no feedback for a query naming an identifier (a non-word term)
    feedback_from: str = "fused"  # or "dense", "bm25": the first pass's list the feedback reads


OFF = ((search_ranking, "FEEDBACK_WEIGHT", 0.0),)  # the pipeline before pseudo-relevance feedback
RARE = (search_ranking, "RARE_WEIGHT")

VARIANTS = [
    # Round 1 (no feedback).
    Variant("before: one vector per chunk", window=None, settings=OFF),
    Variant("before, dense only", window=None, retrievers="dense"),
    Variant("BM25 only", window=None, retrievers="bm25"),
    Variant("round 1: chunk + windows of ≥ 150 characters, max-sim, RRF", settings=OFF),
    Variant("windows only, no chunk vector", chunk_vector=False, settings=OFF),
    Variant("dense only, max-sim", retrievers="dense"),
    Variant("windows of single sentences", window=1, settings=OFF),
    Variant("windows of ≥ 80 characters", window=80, settings=OFF),
    Variant("windows of ≥ 250 characters", window=250, settings=OFF),
    Variant("windows of ≥ 400 characters", window=400, settings=OFF),
    Variant("max-sim, chunks 500/50", size=500, overlap=50, settings=OFF),
    Variant("max-sim, chunks 1500/150", size=1500, overlap=150, settings=OFF),
    Variant(
        "max-sim, no compound matching", settings=((search_ranking, "MAX_EXPANSIONS", 0), *OFF)
    ),
    Variant("max-sim, RRF dense ×1.5", settings=((search_ranking, "DENSE_WEIGHT", 1.5), *OFF)),
    Variant("max-sim, RRF BM25 ×1.5", settings=((search_ranking, "SPARSE_WEIGHT", 1.5), *OFF)),
    Variant("max-sim, 10 candidates each", settings=((search_ranking, "MIN_CANDIDATES", 10), *OFF)),
    Variant("max-sim, 40 candidates each", settings=((search_ranking, "MIN_CANDIDATES", 40), *OFF)),
    Variant("max-sim, RRF k = 20", settings=((search_ranking, "RRF_K", 20), *OFF)),
    Variant("max-sim, z-scores 0.6 dense + 0.4 BM25 instead of RRF", retrievers="z-score"),
    # Round 3, each against round 1's pipeline. The BM25 feedback (idea 1) is kept.
    Variant(
        "max-sim, RRF, BM25 + 10 terms of the top 3 weighing 0.5 × the query, RRF, "
        "rare words × 1.75 (**kept**)"
    ),
    Variant("PRF dense: + 0.5 × mean best vector of top 3", rocchio=0.5),
    Variant("PRF dense: + 1.0 × mean best vector of top 3", rocchio=1.0),
    Variant("PRF dense: + 0.5 × mean best vector of top 5", rocchio=0.5, feedback=5),
    Variant("PRF dense: + 0.5 × mean chunk vector of top 3", rocchio=0.5, rocchio_vector="own"),
    Variant("PRF dense: + 0.5 × top 3, second pass over top 200", rocchio=0.5, pool=200),
    Variant("PRF BM25: top 10 terms of top 3 at 0.3 each", rm3=0.3),
    Variant("PRF BM25: top 10 terms of top 3 at 0.5 each", rm3=0.5),
    Variant("PRF BM25: top 10 terms of top 3 at 0.7 each", rm3=0.7),
    Variant("PRF BM25: top 10 terms of top 3 at 1.0 each", rm3=1.0),
    Variant("PRF BM25: top 5 terms of top 3 at 0.5 each", rm3=0.5, rm3_terms=5),
    Variant("PRF BM25: top 20 terms of top 3 at 0.5 each", rm3=0.5, rm3_terms=20),
    Variant("PRF BM25: top 20 terms of top 5 at 0.3 each", rm3=0.3, rm3_terms=20, feedback=5),
    Variant("PRF BM25: top 10 terms of top 1 at 0.5 each", rm3=0.5, feedback=1),
    Variant("PRF BM25: top 10 terms of top 2 at 0.5 each", rm3=0.5, feedback=2),
    Variant("PRF BM25: top 10 terms of top 5 at 0.5 each", rm3=0.5, feedback=5),
    Variant("PRF BM25: top 10 terms of dense top 3 at 0.5 each", rm3=0.5, feedback_from="dense"),
    Variant("PRF BM25: top 10 terms of BM25 top 3 at 0.5 each", rm3=0.5, feedback_from="bm25"),
    Variant("PRF both: dense 0.5 + BM25 0.3 each, top 3", rocchio=0.5, rm3=0.3),
    Variant("PRF BM25: 10 terms of top 3 weighing 0.3 × the query", rm3=0.3, rm3_share=True),
    Variant("PRF BM25: 10 terms of top 3 weighing 0.5 × the query", rm3=0.5, rm3_share=True),
    Variant("PRF BM25: 10 terms of top 3 weighing 0.7 × the query", rm3=0.7, rm3_share=True),
    Variant(
        "PRF BM25: 5 terms of top 3 weighing 0.5 × the query",
        **{"rm3": 0.5, "rm3_share": True, "rm3_terms": 5},
    ),
    Variant(
        "PRF BM25: 20 terms of top 3 weighing 0.5 × the query",
        **{"rm3": 0.5, "rm3_share": True, "rm3_terms": 20},
    ),
    Variant(
        "PRF BM25: 10 terms of top 2 weighing 0.5 × the query",
        **{"rm3": 0.5, "rm3_share": True, "feedback": 2},
    ),
    Variant(
        "PRF BM25: 10 terms of top 5 weighing 0.5 × the query",
        **{"rm3": 0.5, "rm3_share": True, "feedback": 5},
    ),
    Variant(
        "PRF BM25: 10 terms of top 3 weighing 0.5 × the query, none for identifiers",
        **{"rm3": 0.5, "rm3_share": True, "words_only": True},
    ),
    Variant(
        "PRF BM25: kept, two rounds",
        **{"rm3": 0.5, "rm3_share": True, "rounds": 2},
    ),
    Variant(
        "PRF BM25: kept, each chunk's words weighing 1 / its rank",
        **{"rm3": 0.5, "rm3_share": True, "by_rank": True},
    ),
    Variant(
        "PRF BM25: 10 terms of top 5 weighing 0.5 × the query, by 1 / rank",
        **{"rm3": 0.5, "rm3_share": True, "by_rank": True, "feedback": 5},
    ),
    # BM25 over smaller units than the chunk (idea 2).
    Variant("BM25 over single sentences, chunk = best", sparse_window=1),
    Variant("BM25 over windows ≥ 150, chunk = best", sparse_window=150),
    Variant("BM25 over windows ≥ 300, chunk = best", sparse_window=300),
    Variant("BM25 chunk + 1.0 × best window ≥ 150", sparse_window=150, sparse_mix=1.0),
    Variant("BM25 chunk + 0.5 × best window ≥ 150", sparse_window=150, sparse_mix=0.5),
    Variant("PRF BM25 0.5 each + BM25 over windows ≥ 150", rm3=0.5, sparse_window=150),
    Variant("PRF BM25 0.3 each + BM25 over windows ≥ 150", rm3=0.3, sparse_window=150),
    Variant(
        "PRF BM25 0.5 each, 5 terms + windows ≥ 150",
        **{"rm3": 0.5, "rm3_terms": 5, "sparse_window": 150},
    ),
    Variant(
        "PRF BM25 0.5 each + chunk + 1.0 × best window",
        **{"rm3": 0.5, "sparse_window": 150, "sparse_mix": 1.0},
    ),
    Variant(
        "PRF BM25 0.5 each + chunk + 0.5 × best window",
        **{"rm3": 0.5, "sparse_window": 150, "sparse_mix": 0.5},
    ),
    Variant("PRF BM25 0.5 each + BM25 over single sentences", rm3=0.5, sparse_window=1),
    Variant("PRF BM25 0.5 each + BM25 over windows ≥ 300", rm3=0.5, sparse_window=300),
    Variant(
        "PRF BM25 0.3 × the query + windows ≥ 150",
        **{"rm3": 0.3, "rm3_share": True, "sparse_window": 150},
    ),
    Variant(
        "PRF BM25 0.5 × the query + windows ≥ 150",
        **{"rm3": 0.5, "rm3_share": True, "sparse_window": 150},
    ),
    Variant(
        "PRF BM25 0.5 × the query + chunk + best window",
        **{"rm3": 0.5, "rm3_share": True, "sparse_window": 150, "sparse_mix": 1.0},
    ),
    Variant(
        "dense: also the question without its question words, best of both", query_parts="stripped"
    ),
    Variant("dense: also the question's clauses, best of all", query_parts="clauses"),
    Variant(
        "dense: also the question without its question words + BM25 feedback as kept",
        **{"query_parts": "stripped", "rm3": 0.5, "rm3_share": True},
    ),
    # Contextual headers (idea 3).
    Variant("heading before each dense text", header=True, settings=OFF),
    # Thesaurus (idea 4).
    Variant("BM25 + thesaurus synonyms at 0.3", thesaurus=0.3),
    Variant("BM25 + thesaurus synonyms at 0.6", thesaurus=0.6),
    # Document prior (idea 5).
    Variant("dense + 0.3 × document similarity", prior=0.3),
    Variant("dense + 0.6 × document similarity", prior=0.6),
    Variant("dense + 1.0 × document similarity", prior=1.0),
    # Others.
    Variant("BM25 k1 = 1.2", settings=((search_ranking, "BM25_K1", 1.2), *OFF)),
    Variant("BM25 k1 = 2.0", settings=((search_ranking, "BM25_K1", 2.0), *OFF)),
    Variant("BM25 b = 0.5", settings=((search_ranking, "BM25_B", 0.5), *OFF)),
    Variant("BM25 b = 0.9", settings=((search_ranking, "BM25_B", 0.9), *OFF)),
    Variant("BM25 stemmed (Snowball German)", settings=(*stemming("german"), *OFF)),
    Variant("BM25 stemmed (Snowball English)", settings=(*stemming("english"), *OFF)),
    Variant(
        "BM25 stemmed (Snowball English, then German)",
        settings=(*stemming("english", "german"), *OFF),
    ),
    # Round 4, each against the kept pipeline: how much a rare word's keyword rank weighs.
    Variant("round 4: kept without rare words", settings=((*RARE, 1.0),)),
    Variant("round 4: rare words × 1.5", settings=((*RARE, 1.5),)),
    Variant("round 4: rare words × 2", settings=((*RARE, 2.0),)),
    Variant(
        "round 4: rare words × 1.5, in ≤ 10 chunks",
        settings=((*RARE, 1.5), (search_ranking, "RARE_CHUNKS", 10)),
    ),
    Variant(
        "round 4: rare words × 1.5, in 1 chunk",
        settings=((*RARE, 1.5), (search_ranking, "RARE_CHUNKS", 1)),
    ),
    Variant(
        "round 4: rare words in any number of chunks",
        settings=((search_ranking, "RARE_CHUNKS", 10**9),),
    ),
]
Z_DENSE = 0.6


# --- The corpus ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Piece:
    document: int
    text: str
    heading: str  # the manual-page section or Markdown breadcrumb it sits under


def chunks_of(size: int, overlap: int) -> list[Piece]:
    """The chunks as the chunk step cuts them, at this size and overlap."""
    found = []
    for number, source in enumerate(sources(), 1):
        for unit in units(source):
            prefix = unit["prefix"]
            text = unit["text"]
            bodies = (
                split_text(text, size - len(prefix), overlap) if unit["split"] else [text.strip()]
            )
            headings = [(m.start(), m.group(0)) for m in _HEADING_LINE.finditer(text)]
            for body in bodies:
                if len(body) < unit["min_chars"]:
                    continue
                at = text.find(body[:80])
                above = [h for start, h in headings if start <= at]
                heading = unit["section"] or (above[-1].strip().title() if above else "")
                found.append(Piece(number, prefix + body, heading))
    return found


_HEADING_LINE = re.compile(r"^[A-ZÄÖÜ][A-ZÄÖÜ0-9 ,/()-]{3,}$", re.MULTILINE)
assert _HEADING_LINE.pattern.strip("^$") == HEADING.pattern.strip("^$")


class VectorCache:
    """Vectors by model, side (query or passage) and text, kept on disk between runs, with the
    seconds it took to make each."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(path)
        self.db.execute(
            "create table if not exists vectors (model text, side text, key text, "
            "seconds real, vector blob, primary key (model, side, key))"
        )

    def embed(self, texts: list[str], *, query: bool = False) -> tuple[np.ndarray, float]:
        side = "query" if query else "passage"
        keys = [hashlib.sha256(text.encode()).hexdigest()[:32] for text in texts]
        found: dict[str, tuple[float, bytes]] = {}
        for start in range(0, len(keys), 500):
            part = keys[start : start + 500]
            rows = self.db.execute(
                f"select key, seconds, vector from vectors where model = ? and side = ? and key "
                f"in ({','.join('?' * len(part))})",
                [MODEL, side, *part],
            )
            found.update((key, (seconds, vector)) for key, seconds, vector in rows)
        missing = list(dict.fromkeys(k for k in keys if k not in found))
        text_of = dict(zip(keys, texts, strict=True))
        for start in range(0, len(missing), 32):
            part = missing[start : start + 32]
            started = time.perf_counter()
            vectors = gateway.embed([text_of[k] for k in part])
            each = (time.perf_counter() - started) / len(part)
            rows = [(MODEL, side, k, each, v.tobytes()) for k, v in zip(part, vectors, strict=True)]
            self.db.executemany("insert or replace into vectors values (?, ?, ?, ?, ?)", rows)
            self.db.commit()
            found.update((k, (each, v.tobytes())) for k, v in zip(part, vectors, strict=True))
        seconds = sum(found[k][0] for k in dict.fromkeys(keys))
        return np.stack([np.frombuffer(found[k][1], np.float32) for k in keys]), seconds


cache: VectorCache  # opened by main()


def dense_texts(variant: Variant, piece: Piece) -> list[str]:
    """The texts of one chunk's dense vectors: its own, then its windows'."""
    own = [piece.text] if variant.chunk_vector or variant.window is None else []
    parts = chunking.windows(piece.text, variant.window) if variant.window else []
    texts = (own + parts) or [piece.text]
    if variant.header and piece.heading:
        texts = [f"{piece.heading}: {text}" for text in texts]
    return texts


@dataclass
class Corpus:
    snapshot: Snapshot
    texts: dict[int, str]  # chunk id → text
    windows: Snapshot | None  # BM25 over smaller units (sparse_window), rows → `window_starts`
    window_starts: np.ndarray | None
    centroids: np.ndarray  # per row: its document's mean chunk vector, normalised


def build(variant: Variant) -> tuple[Corpus, float]:
    """The corpus for this variant and seconds to build it from the texts (embedding every chunk
    and window, tokenizing, indexing)."""
    pieces = chunks_of(variant.size, variant.overlap)
    texts_per_chunk = [dense_texts(variant, piece) for piece in pieces]
    flat = [text for texts in texts_per_chunk for text in texts]
    vectors, seconds = cache.embed(flat)
    started = time.perf_counter()
    rows, position = [], 0
    for chunk_id, (piece, texts) in enumerate(zip(pieces, texts_per_chunk, strict=True), 1):
        rows.append(
            (chunk_id, piece.document, piece.text, vectors[position : position + len(texts)])
        )
        position += len(texts)
    snapshot = Snapshot.empty(1, "bench", vectors.shape[1]).changed(1, add=rows)
    window_snapshot = window_starts = None
    if variant.sparse_window:
        parts = [
            chunking.windows(piece.text, variant.sparse_window) or [piece.text] for piece in pieces
        ]
        sizes = np.array([len(p) for p in parts])
        window_starts = np.cumsum(sizes) - sizes
        window_rows = [
            (i, 0, text, np.zeros((1, 1), np.float32))
            for i, text in enumerate((t for p in parts for t in p), 1)
        ]
        window_snapshot = Snapshot.empty(1, "bench", 1).changed(1, add=window_rows)
    own = all_vectors(snapshot)[vector_starts(snapshot)].astype(np.float32)
    centroids = np.zeros_like(own)
    row_documents = snapshot.document_ids()
    for document in np.unique(row_documents):
        mine = row_documents == document
        mean = own[mine].mean(axis=0)
        centroids[mine] = mean / np.linalg.norm(mean)
    seconds += time.perf_counter() - started
    texts = {chunk_id: piece.text for chunk_id, piece in enumerate(pieces, 1)}
    return Corpus(snapshot, texts, window_snapshot, window_starts, centroids), seconds


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


# --- Thesaurus -----------------------------------------------------------------------------------

THESAURI = [Path("/usr/share/mythes/th_de_DE_v2.dat"), Path("/usr/share/mythes/th_en_US_v2.dat")]
_synonyms: dict[str, set[str]] | None = None


def synonyms() -> dict[str, set[str]]:
    """Folded word → folded one-word synonyms, from the MyThes files (Debian mythes-de/-en-us)."""
    global _synonyms
    if not any(path.exists() for path in THESAURI):  # the app does not install them
        raise ModuleNotFoundError(name="mythes-de (apt)")
    if _synonyms is None:
        _synonyms = {}
        for path in THESAURI:
            if not path.exists():
                continue
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()[1:]
            i = 0
            while i < len(lines):
                word, _, count = lines[i].rpartition("|")
                meanings = lines[i + 1 : i + 1 + int(count)]
                i += 1 + int(count)
                key = fold(word)
                if " " in key:
                    continue
                found = _synonyms.setdefault(key, set())
                for meaning in meanings:
                    for term in meaning.split("|")[1:]:
                        term = fold(re.sub(r"\s*\(.*?\)", "", term).strip())
                        if term and " " not in term and term != key and term.isalpha():
                            found.add(term)
    return _synonyms


# --- Rankings ------------------------------------------------------------------------------------


def top(scores: np.ndarray, n: int, floor: float) -> np.ndarray:
    """Rows of the n best scores at least `floor`, ties to the lower row."""
    n = min(n, len(scores))
    best = np.argpartition(-scores, n - 1)[:n]
    best = best[np.lexsort((best, -scores[best]))]
    return best[scores[best] >= floor]


def all_vectors(snapshot: Snapshot) -> np.ndarray:
    """Every dense row of a snapshot of live chunks only (as this bench makes), in row order."""
    return np.concatenate(
        [np.zeros((0, snapshot.dim), np.float16)]
        + [segment.vectors() for segment in snapshot.segments]
    )


def vector_starts(snapshot: Snapshot) -> np.ndarray:
    """Where each chunk's vectors start among `all_vectors`."""
    counts = snapshot.vector_counts()
    return np.cumsum(counts) - counts


def dense_scores(corpus: Corpus, variant: Variant, vector: np.ndarray) -> np.ndarray:
    """Max-sim of every chunk; with several query vectors (rows), the best over them too (one
    pass over the vectors: a matrix product reads them once)."""
    snapshot = corpus.snapshot
    similarity = all_vectors(snapshot).astype(np.float32) @ vector.T
    if similarity.ndim == 2:
        similarity = similarity.max(axis=1)
    scores = np.maximum.reduceat(similarity, vector_starts(snapshot))
    if variant.prior:
        scores = scores + variant.prior * (corpus.centroids @ vector)
    return scores


def weighted_bm25(snapshot: Snapshot, weights: dict[str, float]) -> np.ndarray:
    """BM25 of every row for exact terms at their weights (no compound matching)."""
    scores = np.zeros(len(snapshot), np.float32)
    for term, weight in weights.items():
        snapshot._add_term(scores, term, weight)
    return scores


def per_chunk(corpus: Corpus, window_scores: np.ndarray) -> np.ndarray:
    return np.maximum.reduceat(window_scores, corpus.window_starts)


def sparse_scores(corpus: Corpus, variant: Variant, query: str) -> np.ndarray:
    if variant.sparse_window:
        best = per_chunk(corpus, corpus.windows.bm25_scores(query))
        scores = (
            best
            if variant.sparse_mix is None
            else (corpus.snapshot.bm25_scores(query) + variant.sparse_mix * best)
        )
    else:
        scores = corpus.snapshot.bm25_scores(query)
    if variant.thesaurus:
        table = synonyms()
        asked = set(query_terms(query))
        extra: dict[str, float] = {}
        for term in asked:
            for synonym in table.get(term, ()):
                if synonym not in asked:
                    extra[synonym] = variant.thesaurus
        scores = scores + weighted_bm25(corpus.snapshot, extra)
    return scores


def fused(corpus: Corpus, dense: np.ndarray, keyword: np.ndarray, n: int, k: int) -> list[int]:
    ids = corpus.snapshot.ids
    dense_rows = top(dense, n, MIN_SIMILARITY)
    candidates = np.flatnonzero(keyword > 0)
    keyword_rows = candidates[np.lexsort((ids[candidates], -keyword[candidates]))][:n]
    ranked = search_ranking.fuse(ids[dense_rows].tolist(), ids[keyword_rows].tolist(), k)
    return [r.chunk_id for r in ranked]


def feedback_terms(
    corpus: Corpus, rows: list[int], count: int, asked: set[str], by_rank: bool = False
) -> dict[str, float]:
    """RM3-like: the terms of the feedback chunks by mean tf/length × idf, best `count`, as
    weights summing to 1."""
    weight: dict[str, float] = {}
    snapshot = corpus.snapshot
    for rank, row in enumerate(rows, 1):
        terms = tokenize(corpus.texts[int(snapshot.ids[row])])
        for term, tf in zip(*np.unique(terms, return_counts=True), strict=True):
            if term in asked or not term.isalpha() or len(term) < 3:
                continue
            idf = snapshot.idf(snapshot.columns([term])[0])
            share = 1 / rank if by_rank else 1.0
            weight[term] = weight.get(term, 0.0) + share * idf * tf / len(terms)
    best = sorted(weight, key=lambda t: -weight[t])[:count]
    total = sum(weight[t] for t in best) or 1.0
    return {t: weight[t] / total for t in best}


def ranking(
    corpus: Corpus, variant: Variant, query: str, vector: np.ndarray, k: int = DEPTH
) -> list[int]:
    """The top k for the question; the hybrids take max(20, 2k) candidates per retriever, as
    `Snapshot.search` does."""
    snapshot = corpus.snapshot
    if variant.retrievers == "dense":
        return snapshot.ids[top(dense_scores(corpus, variant, vector), k, -1.0)].tolist()
    if variant.retrievers == "bm25":
        keyword = sparse_scores(corpus, variant, query)
        candidates = np.flatnonzero(keyword > 0)
        order = candidates[np.lexsort((snapshot.ids[candidates], -keyword[candidates]))]
        return snapshot.ids[order[:k]].tolist()
    if variant.query_parts:
        vector = cache.embed(query_parts(query, variant.query_parts), query=True)[0]
    if variant.retrievers == "hybrid" and not any(
        (
            variant.prior,
            variant.sparse_window,
            variant.thesaurus,
            variant.rocchio,
            variant.rm3,
            variant.query_parts,
        )
    ):
        texts = corpus.texts
        ranked = snapshot.search(
            query, vector, None, k, MIN_SIMILARITY, texts=lambda ids: [texts[i] for i in ids]
        )
        return [hit.chunk_id for hit in ranked]
    # What follows is the bench's own pipeline: round 1's (no feedback by the index) with the
    # variant's change.
    dense = dense_scores(corpus, variant, vector)
    keyword = sparse_scores(corpus, variant, query)
    if variant.retrievers == "z-score":
        # Each retriever's scores over every chunk as z-scores, then a weighted sum: unlike RRF
        # it keeps how far ahead a chunk is, not only its place.
        total = sum(
            weight * (scores - scores.mean()) / (scores.std() or 1.0)
            for weight, scores in ((Z_DENSE, dense), (1 - Z_DENSE, keyword))
        )
        return snapshot.ids[np.argsort(-total, kind="stable")[:k]].tolist()
    n = max(search_ranking.MIN_CANDIDATES, 2 * k)
    first = fused(corpus, dense, keyword, n, k)
    if not (variant.rocchio or variant.rm3):
        return first
    if variant.words_only and not all(term.isalpha() for term in query_terms(query)):
        return first
    if variant.feedback_from == "dense":
        first = snapshot.ids[top(dense, variant.feedback, MIN_SIMILARITY)].tolist()
    elif variant.feedback_from == "bm25":
        first = snapshot.ids[top(keyword, variant.feedback, 1e-9)].tolist()
    rows = [chunk_id - 1 for chunk_id in first[: variant.feedback]]  # chunk id = row + 1 here
    if variant.rocchio:
        vectors = all_vectors(snapshot).astype(np.float32)
        counts, starts = snapshot.vector_counts(), vector_starts(snapshot)
        chosen = []
        for row in rows:
            own = vectors[starts[row] : starts[row] + counts[row]]
            chosen.append(
                own[0] if variant.rocchio_vector == "own" else own[np.argmax(own @ vector)]
            )
        second = vector + variant.rocchio * np.mean(chosen, axis=0)
        second = second / np.linalg.norm(second)
        again = dense_scores(corpus, variant, second)
        if variant.pool:
            outside = np.ones(len(dense), bool)
            outside[top(dense, variant.pool, -1.0)] = False
            again[outside] = -np.inf
        dense = again
    if variant.rm3:
        asked = set(query_terms(query))
        original = keyword
        for _ in range(variant.rounds):
            extra = feedback_terms(corpus, rows, variant.rm3_terms, asked, variant.by_rank)
            total = variant.rm3 * (len(asked) if variant.rm3_share else len(extra))
            keyword = original + weighted_bm25(snapshot, {t: total * w for t, w in extra.items()})
            again = fused(corpus, dense, keyword, n, k)
            rows = [chunk_id - 1 for chunk_id in again[: variant.feedback]]
    return fused(corpus, dense, keyword, n, k)


def scores(hits: list[list[bool]]) -> list[float]:
    """Recall@1, @3, @7 and MRR over the top DEPTH."""
    recall = [float(np.mean([any(h[:k]) for h in hits])) for k in KS]
    reciprocal = [next((1 / rank for rank, ok in enumerate(h, 1) if ok), 0.0) for h in hits]
    return [*recall, float(np.mean(reciprocal))]


def main() -> None:
    global cache
    cache = VectorCache(CACHE / "vectors.sqlite")
    asked = questions()
    query_vectors, _ = cache.embed([q.text for q in asked], query=True)
    vector_of = dict(zip([q.id for q in asked], query_vectors, strict=True))
    print("## Retrieval quality (bench/retrieval_eval/, embedded USE multilingual embeddings)\n")
    count = {
        (kind, split): sum(q.kind == kind and q.split == split for q in asked)
        for kind in ("paraphrase", "identifier")
        for split in ("tuning", "held-out")
    }
    print(
        f"{len(asked)} questions over {len(sources())} documents: "
        f"{count['paraphrase', 'tuning']} + {count['paraphrase', 'held-out']} held out worded "
        f"without the passage's key terms (paraphrase), {count['identifier', 'tuning']} + "
        f"{count['identifier', 'held-out']} held out naming an exact term (identifier). "
        "Recall@k: the answering passage is in the top k; MRR over the top "
        f"{DEPTH}. Build: embedding and indexing the corpus on this machine's load; memory: "
        "vectors + postings held.\n"
    )
    print(
        "Recall and MRR are read from a top 20 (so 40 candidates per retriever); the three "
        f"`k = {ASKED}` columns ask for {ASKED} chunks, as chat and search do (20 candidates per "
        "retriever), and give recall@7 of that answer: paraphrase tuning, held out, identifier.\n"
    )
    print(
        "| variant | para R@1 | R@3 | R@7 | MRR | held-out para R@7 | MRR | ident R@1 | R@7 | "
        f"MRR | held-out ident R@7 | k = {ASKED}: para R@7 | held out | ident R@7 | vectors | "
        "build | memory |"
    )
    print("| --- |" + " ---: |" * 16)
    only = os.environ.get("BENCH_VARIANTS")
    for variant in VARIANTS:
        if only and not any(word in variant.name for word in only.split(",")):
            continue
        found: dict[tuple[str, str], list[list[bool]]] = {}
        asked_7: dict[str, list[bool]] = {}
        try:
            with applied(variant.settings):
                corpus, seconds = build(variant)
                for question in asked:
                    vector = vector_of[question.id]
                    ids = ranking(corpus, variant, question.text, vector)
                    found.setdefault((question.kind, question.split), []).append(
                        [answers(corpus.texts[chunk_id], question) for chunk_id in ids]
                    )
                    top_7 = ranking(corpus, variant, question.text, vector, ASKED)
                    key = question.split if question.kind == "paraphrase" else "identifier"
                    asked_7.setdefault(key, []).append(
                        any(answers(corpus.texts[chunk_id], question) for chunk_id in top_7)
                    )
        except ModuleNotFoundError as missing:
            print(f"| {variant.name} | not run: {missing.name} is not installed |" + " |" * 15)
            continue
        snapshot = corpus.snapshot
        held = [a for s in snapshot.segments for a in (s.vectors(), s.tf, s.indices)]
        if corpus.windows is not None:
            held += [a for s in corpus.windows.segments for a in (s.tf, s.indices)]
        memory = sum(a.nbytes for a in held) / 2**20
        para = scores(found["paraphrase", "tuning"])
        para_out = scores(found["paraphrase", "held-out"])
        ident = scores(found["identifier", "tuning"] + found["identifier", "held-out"])
        ident_out = scores(found["identifier", "held-out"])
        cells = [
            *para,
            para_out[2],
            para_out[3],
            ident[0],
            ident[2],
            ident[3],
            ident_out[2],
            *(float(np.mean(asked_7[key])) for key in ("tuning", "held-out", "identifier")),
        ]
        print(
            f"| {variant.name} | {' | '.join(f'{c:.2f}' for c in cells)} | "
            f"{int(snapshot.vector_counts().sum())} | {seconds:.0f} s | {memory:.1f} MiB |",
            flush=True,
        )


if __name__ == "__main__":
    main()
