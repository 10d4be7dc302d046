"""Hybrid retrieval: exact dense search (faiss) and BM25 over the same live chunks, fused by RRF.

A chunk has several vectors, its own and its sentence windows'; dense search scores it by the
best of them (max-sim) and hands out the whole chunk. The BM25 query is then widened by the
best terms of the first fused top chunks (pseudo-relevance feedback) and the two are fused again.

The index is a cache of the database (a chunk's vector lives in its row). Each process holds
one immutable `Snapshot`; when the database's generation moves on, the process brings its
snapshot up to date incrementally (added and removed chunk ids), one writer at a time under a
file lock, and saves it under DATA_DIR/index/ as a single file replaced atomically, so the
dense and keyword halves are always written, read and swapped together.
"""

import bisect
import copy
import fcntl
import hashlib
import json
import logging
import os
import tempfile
import threading
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import faiss
import numpy as np
from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models.functions import Length
from scipy import sparse

from apps.llm import gateway
from apps.vault.chunking import windows
from apps.vault.embedding import chunk_vectors
from apps.vault.errors import ScopeError as ScopeError  # search raises it; callers catch it here
from apps.vault.models import Chunk, IndexState
from apps.vault.scope import WHOLE_VAULT, Scope
from apps.vault.tokenize import can_expand, query_terms, tokenize

logger = logging.getLogger(__name__)

RRF_K = 60
MIN_CANDIDATES = 20  # per retriever, before fusion
DENSE_WEIGHT = 1.0  # RRF weights of the two rankings
SPARSE_WEIGHT = 1.0
BM25_K1 = 1.5
BM25_B = 0.75
COMPOUND_WEIGHT = 0.5  # a query word found inside a compound counts half an exact match
MAX_EXPANSIONS = 64  # compounds looked at per query word
# Pseudo-relevance feedback: the FEEDBACK_TERMS best terms (tf/length × idf) of the first fused
# top FEEDBACK_CHUNKS are added to the BM25 query, weighing FEEDBACK_WEIGHT × the query's own
# terms in all (0: off). A paraphrase shares few words with its passage; the passage's
# neighbours in the first ranking often share many.
FEEDBACK_CHUNKS = 3
FEEDBACK_TERMS = 10
FEEDBACK_WEIGHT = 0.5
MIN_FEEDBACK_TERM = 3  # shorter words are not added, nor identifiers and numbers
FILE_NAME = "hybrid.npz"
FORMAT = 2  # 2: several vectors per chunk (`starts`)
BATCH = 1000

# Memory-bound scans on a small machine: one thread is faster than faiss's default two.
faiss.omp_set_num_threads(1)


@dataclass(frozen=True)
class Hit:
    chunk_id: int
    document_id: int
    filename: str
    page: int | None
    section: str
    text: str
    score: float
    dense_rank: int | None
    sparse_rank: int | None


@dataclass(frozen=True)
class Ranked:
    chunk_id: int
    score: float
    dense_rank: int | None
    sparse_rank: int | None


# --- The database's generation ----------------------------------------------------------------


def current_generation(model_name: str) -> int:
    """A number that changes whenever the set of live chunks changes.

    The vault bumps IndexState in the same transaction that makes chunks live or retires them
    (pipeline.on_chunks_changed); the model name keeps two vector spaces apart.
    """
    key = f"{model_name}|{IndexState.current()}"
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:7], "big")


def live_chunks(model_name: str):
    """The chunks the index holds: live ones embedded with the current model."""
    return Chunk.objects.live().filter(embedding_model=model_name)


def index_dir() -> Path:
    return Path(settings.DATA_DIR) / "index"


# --- One consistent pair of retrievers -----------------------------------------------------------


class Snapshot:
    """Dense and BM25 retrievers over the same rows; row i is chunk `ids[i]`. Never mutated.

    The rows play the part of faiss's IndexIDMap: the BM25 matrix shares them, so one scope
    bitmap filters both retrievers inside their scans.
    """

    def __init__(
        self,
        *,
        generation: int,
        model: str,
        dim: int,
        ids: np.ndarray,
        document_ids: np.ndarray,
        dense: faiss.IndexFlatIP,
        starts: np.ndarray,
        postings: sparse.csc_matrix,
        doc_len: np.ndarray,
        vocab: list[str],
    ) -> None:
        assert len(ids) == len(document_ids) == len(starts) == postings.shape[0] == len(doc_len)
        assert not len(ids) or (starts[0] == 0 and starts[-1] < dense.ntotal)
        self.generation = generation
        self.key: tuple = ()  # (directory, generation, model) once a process adopts it
        self.model = model
        self.dim = dim
        self.ids = ids
        self.document_ids = document_ids
        self.dense = dense
        # A chunk's vectors are consecutive dense rows from starts[i]: its own, then its windows.
        self.starts = starts
        self.postings = postings
        self.doc_len = doc_len
        self.vocab = vocab
        self.term_ids = {term: i for i, term in enumerate(vocab)}
        # Each row's document as a small code, so a scope becomes a row bitmap by one gather
        # (np.isin over every row sorted 100k ids per query).
        self.documents, codes = np.unique(document_ids, return_inverse=True)
        self.document_codes = codes.astype(np.int32).reshape(-1)
        words = sorted(term for term in vocab if term.isalpha())
        self.words = words
        self.reversed_words = sorted(term[::-1] for term in words)
        n = len(ids)
        df = np.diff(postings.indptr)
        self.idf = np.log1p((n - df + 0.5) / (df + 0.5)).astype(np.float32)
        avgdl = float(doc_len.mean()) if n else 1.0
        self.length_norm = (BM25_K1 * (1 - BM25_B + BM25_B * doc_len / max(avgdl, 1.0))).astype(
            np.float32
        )

    @classmethod
    def empty(cls, generation: int, model: str, dim: int) -> "Snapshot":
        return cls(
            generation=generation,
            model=model,
            dim=dim,
            ids=np.zeros(0, np.int64),
            document_ids=np.zeros(0, np.int64),
            dense=faiss.IndexFlatIP(dim),
            starts=np.zeros(0, np.int64),
            postings=sparse.csc_matrix((0, 0), dtype=np.float32),
            doc_len=np.zeros(0, np.float32),
            vocab=[],
        )

    def relabelled(self, generation: int) -> "Snapshot":
        """The same rows under a new generation (the live set did not change)."""
        twin = copy.copy(self)
        twin.generation = generation
        return twin

    def __len__(self) -> int:
        return len(self.ids)

    def vectors(self) -> np.ndarray:
        """Every dense row: each chunk's own vector followed by its windows'."""
        rows = self.dense.ntotal
        return faiss.rev_swig_ptr(self.dense.get_xb(), rows * self.dim).reshape(rows, self.dim)

    def vector_counts(self) -> np.ndarray:
        return np.diff(self.starts, append=self.dense.ntotal)

    # --- changes: a new snapshot from this one ---

    def changed(
        self,
        generation: int,
        *,
        remove: Iterable[int] = (),
        add: Sequence[tuple[int, int, str, np.ndarray]] = (),
    ) -> "Snapshot":
        """A new snapshot without the `remove` chunk ids and with `add` (id, doc, text, vectors).

        The vectors of an added chunk are one row per vector (its own, then its windows').
        """
        gone = np.isin(self.ids, np.fromiter(remove, np.int64))
        keep = ~gone
        vocab = list(self.vocab)
        term_ids = dict(self.term_ids)
        rows, cols, counts = array("i"), array("i"), array("f")
        lengths = []
        for row, (_, _, text, _) in enumerate(add):
            terms = tokenize(text)
            lengths.append(len(terms))
            frequencies = Counter(terms)  # counted in C; new terms get ids in first-seen order
            for term in frequencies:
                term_id = term_ids.get(term)
                if term_id is None:
                    term_id = term_ids[term] = len(vocab)
                    vocab.append(term)
                cols.append(term_id)
            rows.extend([row] * len(frequencies))
            counts.extend(frequencies.values())
        old = self.postings
        old = sparse.csc_matrix(
            (
                old.data,
                old.indices,
                np.pad(old.indptr, (0, len(vocab) + 1 - len(old.indptr)), "edge"),
            )
            if old.shape[1]
            else (
                np.zeros(0, np.float32),
                np.zeros(0, np.int32),
                np.zeros(len(vocab) + 1, np.int32),
            ),
            shape=(old.shape[0], len(vocab)),
        )
        new = sparse.csc_matrix(
            (
                np.frombuffer(counts, np.float32),
                (np.frombuffer(rows, np.int32), np.frombuffer(cols, np.int32)),
            ),
            shape=(len(add), len(vocab)),
        )
        postings = sparse.vstack([old[keep], new], format="csc", dtype=np.float32)
        dense = faiss.IndexFlatIP(self.dim)
        counts = self.vector_counts()
        if keep.any():
            dense.add(np.ascontiguousarray(self.vectors()[np.repeat(keep, counts)]))
        added = [np.asarray(vectors, np.float32).reshape(-1, self.dim) for *_, vectors in add]
        if added:
            dense.add(np.concatenate(added))
        sizes = np.concatenate([counts[keep], [len(vectors) for vectors in added]]).astype(np.int64)
        return Snapshot(
            generation=generation,
            model=self.model,
            dim=self.dim,
            ids=np.concatenate([self.ids[keep], np.array([a[0] for a in add], np.int64)]),
            document_ids=np.concatenate(
                [self.document_ids[keep], np.array([a[1] for a in add], np.int64)]
            ),
            dense=dense,
            starts=np.cumsum(sizes) - sizes,
            postings=postings,
            doc_len=np.concatenate([self.doc_len[keep], np.asarray(lengths, np.float32)]),
            vocab=vocab,
        )

    # --- the two retrievers ---

    def allowed_rows(self, allowed_documents: np.ndarray | None) -> np.ndarray | None:
        """The scope as a bitmap over rows (True: the row's document is allowed); None: all."""
        if allowed_documents is None:
            return None
        return np.isin(self.documents, allowed_documents)[self.document_codes]

    def dense_ranking(
        self, vector: np.ndarray, allowed: np.ndarray | None, n: int, min_score: float
    ) -> np.ndarray:
        """Rows of the n nearest allowed chunks, at least `min_score`.

        A chunk scores its best vector's inner product (max-sim): its own or one of its
        sentence windows, so one sentence that answers the question is not drowned by the rest.
        The vectors live in the faiss index; one query is scanned as a single BLAS
        matrix-vector product over its storage, which measured 1.5-2x faster on this CPU than
        faiss's own one-query loop (plain or with a selector, generic and AVX-512 builds alike).
        Exact either way; ties go to the lower row, as in faiss.
        """
        if not len(self) or (allowed is not None and not allowed.any()):
            return np.zeros(0, np.int64)
        scores = self.vectors() @ np.asarray(vector, np.float32).reshape(self.dim)
        if len(scores) > len(self):
            scores = np.maximum.reduceat(scores, self.starts)
        if allowed is not None:
            scores[~allowed] = -np.inf
        n = min(n, len(self))
        top = np.argpartition(-scores, n - 1)[:n]
        top = top[np.lexsort((top, -scores[top]))]
        return top[scores[top] >= min_score]

    def bm25_scores(self, query: str) -> np.ndarray:
        """BM25 of every row; a query word also matches compounds it starts or ends."""
        scores = np.zeros(len(self), np.float32)
        for term in query_terms(query):
            exact = self.term_ids.get(term)
            wider = self._compounds(term) if can_expand(term) else []
            if not wider:
                if exact is not None:
                    self._add_term(scores, exact, 1.0)
                continue
            best = np.zeros(len(self), np.float32)
            for term_id, weight in [(exact, 1.0)] * (exact is not None) + [
                (t, COMPOUND_WEIGHT) for t in wider
            ]:
                start, end = self.postings.indptr[term_id], self.postings.indptr[term_id + 1]
                rows = self.postings.indices[start:end]
                best[rows] = np.maximum(best[rows], self._term_scores(term_id, rows, weight))
            scores += best
        return scores

    def sparse_ranking(self, query: str, allowed: np.ndarray | None, n: int) -> np.ndarray:
        """Rows of the n best allowed BM25 matches (score > 0)."""
        if not len(self):
            return np.zeros(0, np.int64)
        return self._best(self.bm25_scores(query), allowed, n)

    def feedback_terms(self, texts: Iterable[str], query: str) -> dict[int, float]:
        """Term ids to add to the query, with their BM25 weights: the FEEDBACK_TERMS best words
        of these chunk texts by tf/length × idf summed over them, not in the query, weighing
        FEEDBACK_WEIGHT × the query's own terms together."""
        asked = query_terms(query)
        weights: Counter[int] = Counter()
        for text in texts:
            terms = tokenize(text)
            for term, count in Counter(terms).items():
                term_id = self.term_ids.get(term)
                if term_id is not None and term.isalpha() and len(term) >= MIN_FEEDBACK_TERM:
                    weights[term_id] += float(self.idf[term_id]) * count / len(terms)
        for term in asked:
            weights.pop(self.term_ids.get(term, -1), None)
        best = sorted(weights, key=lambda term_id: (-weights[term_id], term_id))[:FEEDBACK_TERMS]
        total = FEEDBACK_WEIGHT * len(asked) / max(sum(weights[t] for t in best), 1e-9)
        return {term_id: weights[term_id] * total for term_id in best}

    def search(
        self,
        query: str,
        vector: np.ndarray | None,
        allowed_documents: np.ndarray | None,
        k: int,
        min_score: float = 0.0,
        texts: Callable[[list[int]], Iterable[str]] | None = None,
    ) -> list[Ranked]:
        """Both retrievers inside the allowed documents, fused by reciprocal rank (k = 60).

        With `texts` (chunk ids → their texts) the BM25 query is then widened by the first top
        chunks' words and the two are fused again (pseudo-relevance feedback)."""
        allowed = self.allowed_rows(allowed_documents)
        n = max(MIN_CANDIDATES, 2 * k)
        dense = (
            self.dense_ranking(vector, allowed, n, min_score)
            if vector is not None and vector.shape[-1] == self.dim
            else np.zeros(0, np.int64)
        )
        if not len(self):
            return []
        keyword = self.bm25_scores(query)
        sparse_rows = self._best(keyword, allowed, n)
        dense_ids = self.ids[dense].tolist()
        if texts is not None and FEEDBACK_WEIGHT:
            first = fuse(dense_ids, self.ids[sparse_rows].tolist(), FEEDBACK_CHUNKS)
            added = self.feedback_terms(texts([r.chunk_id for r in first]), query)
            for term_id, weight in added.items():
                self._add_term(keyword, term_id, weight)
            sparse_rows = self._best(keyword, allowed, n)
        return fuse(dense_ids, self.ids[sparse_rows].tolist(), k)

    def _best(self, scores: np.ndarray, allowed: np.ndarray | None, n: int) -> np.ndarray:
        candidates = np.flatnonzero(scores > 0)
        if allowed is not None:
            candidates = candidates[allowed[candidates]]
        if len(candidates) > n:
            candidates = candidates[np.argpartition(-scores[candidates], n - 1)[:n]]
        # Ties by chunk id, so the order is stable across rebuilds.
        return candidates[np.lexsort((self.ids[candidates], -scores[candidates]))]

    def _add_term(self, scores: np.ndarray, term_id: int, weight: float) -> None:
        start, end = self.postings.indptr[term_id], self.postings.indptr[term_id + 1]
        rows = self.postings.indices[start:end]
        scores[rows] += self._term_scores(term_id, rows, weight)

    def _term_scores(self, term_id: int, rows: np.ndarray, weight: float) -> np.ndarray:
        start, end = self.postings.indptr[term_id], self.postings.indptr[term_id + 1]
        tf = self.postings.data[start:end]
        return weight * self.idf[term_id] * tf * (BM25_K1 + 1) / (tf + self.length_norm[rows])

    def _compounds(self, word: str) -> list[int]:
        """Ids of longer words that start or end with `word` (German compounds, plurals)."""
        found: list[str] = []
        for words, key in ((self.words, word), (self.reversed_words, word[::-1])):
            start = bisect.bisect_right(words, key)
            end = bisect.bisect_left(words, key + "\uffff", start)
            found.extend(words[start : min(end, start + MAX_EXPANSIONS)])
        ids = {self.term_ids[w if w in self.term_ids else w[::-1]] for w in found}
        ids.discard(self.term_ids.get(word, -1))
        return sorted(ids)


def fuse(dense: Sequence[int], keyword: Sequence[int], k: int) -> list[Ranked]:
    """Reciprocal rank fusion: score = Σ 1 / (60 + rank), ranks from 1, merged by chunk id."""
    scores: dict[int, float] = {}
    dense_ranks = {chunk_id: rank for rank, chunk_id in enumerate(dense, 1)}
    sparse_ranks = {chunk_id: rank for rank, chunk_id in enumerate(keyword, 1)}
    for ranks, weight in ((dense_ranks, DENSE_WEIGHT), (sparse_ranks, SPARSE_WEIGHT)):
        for chunk_id, rank in ranks.items():
            scores[chunk_id] = scores.get(chunk_id, 0.0) + weight / (RRF_K + rank)
    order = sorted(scores, key=lambda chunk_id: (-scores[chunk_id], chunk_id))[:k]
    return [
        Ranked(chunk_id, scores[chunk_id], dense_ranks.get(chunk_id), sparse_ranks.get(chunk_id))
        for chunk_id in order
    ]


# --- Persistence: one file, replaced atomically ------------------------------------------------


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
    try:
        with np.load(path, allow_pickle=False) as stored:
            meta = json.loads(stored["meta"].tobytes())
            if meta.get("format") != FORMAT:
                return None
            dim = int(meta["dim"])
            vectors = stored["vectors"].astype(np.float32, copy=False).reshape(-1, dim)
            dense = faiss.IndexFlatIP(dim)
            dense.add(np.ascontiguousarray(vectors))
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


# --- Keeping the process's snapshot current ------------------------------------------------------

_snapshot: Snapshot | None = None
_refresh_lock = threading.Lock()


@contextmanager
def _writer_lock(directory: Path) -> Iterator[None]:
    """One writer across processes (web and worker): an exclusive lock on a lock file."""
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def current() -> Snapshot:
    """This process's snapshot, brought up to date with the database if it moved on."""
    global _snapshot
    model = gateway.embedding_model()
    generation = current_generation(model.name)
    # The directory is part of the key: a new DATA_DIR (a test, a restore) is a new vault.
    key = (index_dir(), generation, model.name)
    snapshot = _snapshot
    if snapshot is not None and snapshot.key == key:
        return snapshot
    with _refresh_lock:
        snapshot = _snapshot
        if snapshot is None or snapshot.key != key:
            same_vault = snapshot if snapshot is not None and snapshot.key[0] == key[0] else None
            snapshot, switched = _refresh(same_vault, generation, model.name, int(model.dim))
            snapshot.key = key
            _snapshot = snapshot
            if switched:
                _request_reembed()
    return snapshot


def forget() -> None:
    """Drop this process's snapshot (tests; a new DATA_DIR)."""
    global _snapshot
    _snapshot = None


def _refresh(
    snapshot: Snapshot | None, generation: int, model: str, dim: int
) -> tuple[Snapshot, bool]:
    """Load the saved snapshot or bring one up to date; True when chunks need re-embedding
    (the model changed, or chunks were embedded with an older vector layout)."""
    directory = index_dir()
    with _writer_lock(directory):
        stored = load(directory)
        candidates = [s for s in (stored, snapshot) if s is not None]
        matching = [s for s in candidates if (s.model, s.dim) == (model, dim)]
        switched = bool(candidates) and not matching
        # The saved file is the newest any process wrote; this process's copy is the fallback.
        base = matching[0] if matching else None
        if base is not None and base.generation == generation:
            return base, False
        updated, outdated = sync(base or Snapshot.empty(generation, model, dim), generation)
        save(updated, directory)
        return updated, switched or outdated


def sync(snapshot: Snapshot, generation: int) -> tuple[Snapshot, bool]:
    """The snapshot with the database's live chunks: add new ids, drop retired ones, reload
    those re-embedded in place (their vector count changed). True when some added chunk has
    not the vectors `chunk_vectors` makes today (embedded before sentence windows)."""
    floats = 4 * snapshot.dim
    live = {
        chunk_id: (document_id, size // floats)
        for chunk_id, document_id, size in live_chunks(snapshot.model)
        .annotate(size=Length("embedding"))
        .values_list("id", "document_id", "size")
    }
    have = dict(zip(snapshot.ids.tolist(), snapshot.vector_counts().tolist(), strict=True))
    redone = {
        chunk_id for chunk_id, count in have.items() if live.get(chunk_id, (0, count))[1] != count
    }
    gone = (have.keys() - live.keys()) | redone
    new = sorted((live.keys() - have.keys()) | redone)
    outdated = False
    added: list[tuple[int, int, str, np.ndarray]] = []
    for start in range(0, len(new), BATCH):
        batch = new[start : start + BATCH]
        for chunk_id, document_id, text, blob in Chunk.objects.filter(id__in=batch).values_list(
            "id", "document_id", "text", "embedding"
        ):
            vectors = np.frombuffer(bytes(blob), np.float32)
            if not vectors.size or vectors.size % snapshot.dim:
                logger.warning(
                    "Chunk %s has %s floats, not %s-dim rows; skipped.",
                    chunk_id,
                    vectors.size,
                    snapshot.dim,
                )
                continue
            vectors = vectors.reshape(-1, snapshot.dim)
            outdated = outdated or len(vectors) != 1 + len(windows(text))
            added.append((chunk_id, document_id, text, vectors))
    if not gone and not added:
        return snapshot.relabelled(generation), outdated
    return snapshot.changed(generation, remove=gone, add=added), outdated


# --- Switching the embedding model ---------------------------------------------------------------


def outdated_chunks(model_name: str, batch_size: int = BATCH) -> Iterator[int]:
    """Ids of live chunks of this model whose vectors are not what `chunk_vectors` makes now."""
    dim = int(gateway.embedding_model().dim)
    after = 0
    while True:
        rows = list(
            live_chunks(model_name)
            .filter(id__gt=after)
            .annotate(size=Length("embedding"))
            .order_by("id")
            .values_list("id", "text", "size")[:batch_size]
        )
        if not rows:
            return
        for chunk_id, text, size in rows:
            if size != 4 * dim * (1 + len(windows(text))):
                yield chunk_id
        after = rows[-1][0]


def stale_chunks(model_name: str):
    """Chunks embedded with another model than the configured one, waiting to be re-embedded."""
    return Chunk.objects.live().exclude(embedding_model=model_name)


def reembed_stale(batch_size: int = 64) -> int:
    """Re-embed every stale chunk with the configured model, batch by batch, then every chunk
    embedded with an older vector layout; returns how many.

    Idempotent: a chunk already embedded as `chunk_vectors` does now is never touched again.
    """
    model = gateway.embedding_model()
    done = 0
    outdated = list(outdated_chunks(model.name))
    while True:
        batch = list(stale_chunks(model.name).order_by("id").values_list("id", "text")[:batch_size])
        if not batch and outdated:
            ids, outdated = outdated[:batch_size], outdated[batch_size:]
            batch = list(Chunk.objects.filter(id__in=ids).order_by("id").values_list("id", "text"))
        if not batch:
            return done
        vectors = chunk_vectors([text for _, text in batch])
        with transaction.atomic():
            for (chunk_id, _), vector in zip(batch, vectors, strict=True):
                Chunk.objects.filter(id=chunk_id).update(
                    embedding=vector.tobytes(), embedding_model=model.name
                )
            IndexState.bump()
        done += len(batch)


# Named, not imported: tasks.py imports this module to run the re-embedding.
REEMBED_TASK = "apps.vault.tasks.reembed_chunks"


def _request_reembed() -> None:
    """Ask the worker to re-embed in the background (once the transaction commits); searching
    goes on meanwhile."""
    transaction.on_commit(_send_reembed)


def _send_reembed() -> None:
    try:
        current_app.send_task(REEMBED_TASK)
    except Exception:  # no broker must not break a search; the next switch check retries
        logger.warning("Could not enqueue the re-embedding of stale chunks.", exc_info=True)


# --- What chat, study and the API call ------------------------------------------------------------


def chunk_texts(chunk_ids: list[int]) -> list[str]:
    """The texts of these chunks (the feedback reads the first top ones); gone ones are left out."""
    found = dict(Chunk.objects.filter(id__in=chunk_ids).values_list("id", "text"))
    return [found[chunk_id] for chunk_id in chunk_ids if chunk_id in found]


def search(
    user,
    query: str,
    *,
    k: int = 7,
    scope: Scope = WHOLE_VAULT,
) -> list[Hit]:
    """The k best chunks for the query among the documents the user may see, in scope.
    Raises ScopeError for a scope naming what the user cannot see."""
    query = query.strip()
    if not query:
        return []
    allowed = np.fromiter(scope.searchable(user).values_list("id", flat=True), np.int64)
    if not len(allowed):
        return []
    snapshot = current()
    vector = None
    if len(snapshot):
        try:
            vector = gateway.embed([query])[0]
        except Exception:  # the model being away costs the dense half, not the search
            logger.warning("Query embedding failed; keyword results only.", exc_info=True)
    ranked = snapshot.search(
        query, vector, allowed, k, settings.RETRIEVAL_MIN_SIMILARITY, texts=chunk_texts
    )
    chunks = Chunk.objects.select_related("document").in_bulk([r.chunk_id for r in ranked])
    return [
        Hit(
            chunk_id=r.chunk_id,
            document_id=chunk.document_id,
            filename=chunk.document.filename,
            page=chunk.page,
            section=chunk.section,
            text=chunk.text,
            score=r.score,
            dense_rank=r.dense_rank,
            sparse_rank=r.sparse_rank,
        )
        for r in ranked
        if (chunk := chunks.get(r.chunk_id)) is not None
    ]
