"""Ranking: the two retrievers over a snapshot's rows (dense max-sim, BM25 with compounds and
pseudo-relevance feedback) and their reciprocal rank fusion."""

import bisect
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from apps.vault.tokenize import can_expand, query_terms, tokenize

RRF_K = 60
MIN_CANDIDATES = 20  # per retriever, before fusion
DENSE_CANDIDATES = 8  # vectors fetched per chunk wanted (5 per chunk on average)
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
# A query word that occurs in one document only, in at most RARE_CHUNKS chunks ("Murdock",
# "Schlüsselmerkmale"), is what BM25 weighs most and RRF forgets: a chunk holding one counts
# its keyword rank RARE_WEIGHT times.
RARE_WEIGHT = 1.75
RARE_CHUNKS = 3


def faiss_library() -> ModuleType:
    """faiss, imported by the first search rather than at start-up
    (docs/deployment.md#start-up-time), scanning on the calling thread alone: memory-bound
    scans on a small machine are faster on one thread than on faiss's default two."""
    import faiss

    faiss.omp_set_num_threads(1)
    return faiss


@dataclass(frozen=True)
class Ranked:
    chunk_id: int
    score: float
    dense_rank: int | None
    sparse_rank: int | None


class Retrieval:
    """The retrieving half of a `Snapshot` (apps/vault/search/snapshot.py): its rows' vectors,
    postings and BM25 norms are read here, never changed."""

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
        faiss scans the float16 rows (the scope as a bitmap inside the scan) for the best
        DENSE_CANDIDATES × n vectors; the first n distinct chunks among them are the n best,
        exactly, and when they are fewer the scan is repeated for more.
        """
        if not len(self) or (allowed is not None and not allowed.any()):
            return np.zeros(0, np.int64)
        query = np.asarray(vector, np.float32).reshape(1, self.dim)
        params, bits = None, None
        faiss = faiss_library()
        if allowed is not None:
            bits = np.packbits(allowed[self.vector_rows], bitorder="little")
            selector = faiss.IDSelectorBitmap(len(self.vector_rows), faiss.swig_ptr(bits))
            params = faiss.SearchParameters(sel=selector)
        total = self.dense.ntotal
        wanted = min(n, len(self) if allowed is None else int(allowed.sum()))
        k = min(total, DENSE_CANDIDATES * n)
        while True:
            scores, found = self.dense.search(query, k, params=params)
            found = found[0][found[0] >= 0]
            rows = self.vector_rows[found]
            _, first = np.unique(rows, return_index=True)  # each chunk at its best vector
            first.sort()
            if len(first) >= wanted or k >= total:
                break
            k = min(total, 4 * k)
        first = first[:n]
        return rows[first][scores[0][first] >= min_score].astype(np.int64)

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
        rare = set(self.ids[self.rare_rows(query)].tolist())
        if texts is not None and FEEDBACK_WEIGHT:
            first = fuse(dense_ids, self.ids[sparse_rows].tolist(), FEEDBACK_CHUNKS, rare)
            added = self.feedback_terms(texts([r.chunk_id for r in first]), query)
            asked = keyword > 0
            for term_id, weight in added.items():
                self._add_term(keyword, term_id, weight)
            # The added words reorder the chunks that hold a query word and bring in no other:
            # a keyword rank always means a word of the query is in the chunk.
            keyword[~asked] = 0
            sparse_rows = self._best(keyword, allowed, n)
        return fuse(dense_ids, self.ids[sparse_rows].tolist(), k, rare)

    def rare_rows(self, query: str) -> np.ndarray:
        """Rows holding a query word that occurs in one document only, in few chunks."""
        rows = [np.zeros(0, np.int64)]
        for term in query_terms(query):
            term_id = self.term_ids.get(term)
            if term_id is None:
                continue
            found = self.postings.indices[
                self.postings.indptr[term_id] : self.postings.indptr[term_id + 1]
            ]
            codes = self.document_codes[found]
            if 0 < len(codes) <= RARE_CHUNKS and (codes == codes[0]).all():
                rows.append(found.astype(np.int64))
        return np.unique(np.concatenate(rows))

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


def fuse(
    dense: Sequence[int], keyword: Sequence[int], k: int, rare: Collection[int] = ()
) -> list[Ranked]:
    """Reciprocal rank fusion: score = Σ weight / (60 + rank), ranks from 1, merged by chunk
    id; the keyword rank of a chunk in `rare` (holding a query word of one document only)
    weighs RARE_WEIGHT."""
    scores: dict[int, float] = {}
    dense_ranks = {chunk_id: rank for rank, chunk_id in enumerate(dense, 1)}
    sparse_ranks = {chunk_id: rank for rank, chunk_id in enumerate(keyword, 1)}
    for chunk_id, rank in dense_ranks.items():
        scores[chunk_id] = DENSE_WEIGHT / (RRF_K + rank)
    for chunk_id, rank in sparse_ranks.items():
        weight = SPARSE_WEIGHT * (RARE_WEIGHT if chunk_id in rare else 1.0)
        scores[chunk_id] = scores.get(chunk_id, 0.0) + weight / (RRF_K + rank)
    order = sorted(scores, key=lambda chunk_id: (-scores[chunk_id], chunk_id))[:k]
    return [
        Ranked(chunk_id, scores[chunk_id], dense_ranks.get(chunk_id), sparse_ranks.get(chunk_id))
        for chunk_id in order
    ]
