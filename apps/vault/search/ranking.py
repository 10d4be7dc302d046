"""Ranking: the two retrievers over a snapshot's rows (dense max-sim, BM25 with compounds and
pseudo-relevance feedback) and their reciprocal rank fusion."""

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

from apps.vault.tokenize import can_expand, query_terms, tokenize

if TYPE_CHECKING:
    from apps.vault.search.segment import Segment

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
    """The retrieving half of a `Snapshot` (apps/vault/search/snapshot.py): its segments' vectors
    and postings are read here, never changed. Row r of the snapshot is row r - offsets[i] of
    segment i; BM25's statistics (chunks, document frequencies, mean length) count the live rows
    of every segment, so the scores are those of one index of the live chunks."""

    def allowed_rows(self, allowed_documents: np.ndarray | None) -> np.ndarray | None:
        """The scope as a bitmap over rows (True: the row's document is allowed and the row is
        live); None: every row."""
        if allowed_documents is None:
            return self.alive
        rows = np.concatenate(
            [np.zeros(0, bool)]
            + [np.isin(s.documents, allowed_documents)[s.document_codes] for s in self.segments]
        )
        return rows if self.alive is None else rows & self.alive

    def dense_ranking(
        self, vector: np.ndarray, allowed: np.ndarray | None, n: int, min_score: float
    ) -> np.ndarray:
        """Rows of the n nearest allowed chunks, at least `min_score`.

        A chunk scores its best vector's inner product (max-sim): its own or one of its
        sentence windows, so one sentence that answers the question is not drowned by the rest.
        Each segment gives its n best (apps/vault/search/segment.py), the n best of those win.
        """
        allowed = self.alive if allowed is None else allowed
        if not len(self) or (allowed is not None and not allowed.any()):
            return np.zeros(0, np.int64)
        query = np.asarray(vector, np.float32).reshape(-1)
        rows, scores = [np.zeros(0, np.int64)], [np.zeros(0, np.float32)]
        for segment, start, end in self.spans():
            found, best = segment.dense(query, None if allowed is None else allowed[start:end], n)
            rows.append(found + start)
            scores.append(best)
        rows, scores = np.concatenate(rows), np.concatenate(scores)
        order = np.argsort(-scores, kind="stable")[:n]
        return rows[order[scores[order] >= min_score]]

    def documents_of(self, rows: np.ndarray) -> list[int]:
        """The document of each of these rows."""
        found = []
        for row in rows.tolist():
            at = int(np.searchsorted(self.offsets, row, side="right")) - 1
            segment = self.segments[at]
            found.append(int(segment.documents[segment.document_codes[row - self.offsets[at]]]))
        return found

    def spans(self) -> Iterator[tuple["Segment", int, int]]:
        """Each segment with its first row and the row after its last."""
        for i, segment in enumerate(self.segments):
            yield segment, int(self.offsets[i]), int(self.offsets[i + 1])

    def bm25_scores(self, query: str) -> np.ndarray:
        """BM25 of every row; a query word also matches compounds it starts or ends."""
        scores = np.zeros(len(self.ids), np.float32)
        for term in query_terms(query):
            wider = self.compounds(term) if can_expand(term) else []
            if not wider:
                self._add_term(scores, term, 1.0)
                continue
            best = np.zeros(len(self.ids), np.float32)
            weighted = [(term, 1.0)] + [(t, COMPOUND_WEIGHT) for t in wider]
            columns = self.columns([t for t, _ in weighted])
            for (_, weight), found in zip(weighted, columns, strict=True):
                for rows, term_scores in self._term_scores(found, weight):
                    best[rows] = np.maximum(best[rows], term_scores)
            scores += best
        return scores

    def sparse_ranking(self, query: str, allowed: np.ndarray | None, n: int) -> np.ndarray:
        """Rows of the n best allowed BM25 matches (score > 0)."""
        if not len(self):
            return np.zeros(0, np.int64)
        return self._best(self.bm25_scores(query), allowed, n)

    def feedback_terms(self, texts: Iterable[str], query: str) -> dict[str, float]:
        """Terms to add to the query, with their BM25 weights: the FEEDBACK_TERMS best words
        of these chunk texts by tf/length × idf summed over them, not in the query, weighing
        FEEDBACK_WEIGHT × the query's own terms together."""
        asked = query_terms(query)
        counted = [(Counter(terms), len(terms)) for terms in map(tokenize, texts)]
        words = sorted(
            {
                t
                for counts, _ in counted
                for t in counts
                if t.isalpha() and len(t) >= MIN_FEEDBACK_TERM
            }
        )
        idf = {
            word: self.idf(found)
            for word, found in zip(words, self.columns(words), strict=True)
            if (found >= 0).any()
        }
        weights: Counter[str] = Counter()
        for counts, length in counted:
            for term, count in counts.items():
                if term in idf:
                    weights[term] += float(idf[term]) * count / length
        for term in asked:
            weights.pop(term, None)
        best = sorted(weights, key=lambda term: (-weights[term], term))[:FEEDBACK_TERMS]
        total = FEEDBACK_WEIGHT * len(asked) / max(sum(weights[t] for t in best), 1e-9)
        return {term: weights[term] * total for term in best}

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
            for term, weight in added.items():
                self._add_term(keyword, term, weight)
            # The added words reorder the chunks that hold a query word and bring in no other:
            # a keyword rank always means a word of the query is in the chunk.
            keyword[~asked] = 0
            sparse_rows = self._best(keyword, allowed, n)
        return fuse(dense_ids, self.ids[sparse_rows].tolist(), k, rare)

    def rare_rows(self, query: str) -> np.ndarray:
        """Rows holding a query word that occurs in one document only, in few chunks."""
        rows = [np.zeros(0, np.int64)]
        terms = query_terms(query)
        for found in self.columns(terms):
            held = np.concatenate([np.zeros(0, np.int64)] + [r for r, _ in self._postings(found)])
            if 0 < len(held) <= RARE_CHUNKS and len(set(self.documents_of(held))) == 1:
                rows.append(held)
        return np.unique(np.concatenate(rows))

    def columns(self, terms: Sequence[str]) -> np.ndarray:
        """Each term's column in each segment, -1 where a segment lacks it: (terms, segments)."""
        found = [s.vocabulary.find(terms) for s in self.segments]
        return np.stack(found, axis=1) if found else np.zeros((len(terms), 0), np.int64)

    def idf(self, found: np.ndarray) -> np.float32:
        """The idf of the term in these columns (one per segment), over the live rows."""
        df = 0
        for (segment, start, _), column in zip(self.spans(), found.tolist(), strict=True):
            if column < 0:
                continue
            begin, end = segment.indptr[column], segment.indptr[column + 1]
            if segment.name in self.dead:  # counted row by row only where rows died
                df += int(self.alive[segment.indices[begin:end] + start].sum())
            else:
                df += int(end - begin)
        return np.float32(np.log1p((len(self) - df + 0.5) / (df + 0.5)))

    def compounds(self, word: str) -> list[str]:
        """Longer words that start or end with `word` (German compounds, plurals): the first
        MAX_EXPANSIONS of each kind in sorted order, over every segment's words."""
        starting, ending = set(), set()
        for segment in self.segments:
            starting.update(segment.vocabulary.starting(word, MAX_EXPANSIONS))
            ending.update(segment.vocabulary.ending(word, MAX_EXPANSIONS))
        found = sorted(starting)[:MAX_EXPANSIONS]
        found += sorted(ending, key=lambda term: term[::-1])[:MAX_EXPANSIONS]
        return sorted(set(found) - {word})

    def _postings(self, found: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The live rows holding the term in these columns, and their term frequencies."""
        for (segment, start, _), column in zip(self.spans(), found.tolist(), strict=True):
            if column < 0:
                continue
            begin, end = segment.indptr[column], segment.indptr[column + 1]
            rows, tf = segment.indices[begin:end] + start, segment.tf[begin:end]
            if self.alive is not None:
                live = self.alive[rows]
                rows, tf = rows[live], tf[live]
            yield rows, tf

    def _best(self, scores: np.ndarray, allowed: np.ndarray | None, n: int) -> np.ndarray:
        candidates = np.flatnonzero(scores > 0)
        allowed = self.alive if allowed is None else allowed
        if allowed is not None:
            candidates = candidates[allowed[candidates]]
        if len(candidates) > n:
            candidates = candidates[np.argpartition(-scores[candidates], n - 1)[:n]]
        # Ties by chunk id, so the order is stable across rebuilds.
        return candidates[np.lexsort((self.ids[candidates], -scores[candidates]))]

    def _add_term(self, scores: np.ndarray, term: str, weight: float) -> None:
        for rows, term_scores in self._term_scores(self.columns([term])[0], weight):
            scores[rows] += term_scores

    def _term_scores(
        self, found: np.ndarray, weight: float
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        idf = self.idf(found)
        for rows, tf in self._postings(found):
            norm = BM25_K1 * (1 - BM25_B + BM25_B * self.doc_len[rows] / max(self.avgdl, 1.0))
            yield rows, weight * idf * tf * (BM25_K1 + 1) / (tf + norm.astype(np.float32))


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
