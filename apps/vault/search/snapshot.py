"""The snapshot: dense vectors and BM25 postings over the same live chunks, one immutable pair,
and the new snapshot a set of added and removed chunks makes."""

import copy
from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from apps.vault.search import ranking
from apps.vault.search.ranking import Retrieval
from apps.vault.tokenize import tokenize

# faiss and SciPy load with the first index, not at start-up (docs/deployment.md#start-up-time).
if TYPE_CHECKING:
    import faiss
    from scipy import sparse

ENCODE_BATCH = 4096  # added chunks encoded to float16 at a time


def dense_index(dim: int, rows: int = 0) -> "faiss.IndexScalarQuantizer":
    """A dense index of `rows` zeroed float16 rows, scored by inner product in float32.

    Half precision halves the memory and the file of the float32 vectors the database keeps;
    the ranking it gives is the float32 one at recall@7 ≥ 0.99 (docs/retrieval.md#half-precision).
    """
    faiss = ranking.faiss_library()
    index = faiss.IndexScalarQuantizer(
        dim, faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT
    )
    if rows:
        index.codes.resize(rows * index.code_size)
        index.ntotal = rows
    return index


def stored_rows(index: "faiss.IndexScalarQuantizer") -> np.ndarray:
    """The index's rows as a writable float16 view of its storage (valid while it lives)."""
    if not index.ntotal:
        return np.zeros((0, index.d), np.float16)
    size = index.ntotal * index.code_size
    faiss = ranking.faiss_library()
    return faiss.rev_swig_ptr(index.codes.data(), size).view(np.float16).reshape(-1, index.d)


class Snapshot(Retrieval):
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
        dense: "faiss.IndexScalarQuantizer",
        starts: np.ndarray,
        postings: "sparse.csc_matrix",
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
        # The chunk row of each dense row, to take a chunk's best vector from faiss's ranking.
        self.vector_rows = np.repeat(np.arange(len(ids), dtype=np.int32), self.vector_counts())
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
        self.length_norm = (
            ranking.BM25_K1 * (1 - ranking.BM25_B + ranking.BM25_B * doc_len / max(avgdl, 1.0))
        ).astype(np.float32)

    @classmethod
    def empty(cls, generation: int, model: str, dim: int) -> "Snapshot":
        from scipy import sparse

        return cls(
            generation=generation,
            model=model,
            dim=dim,
            ids=np.zeros(0, np.int64),
            document_ids=np.zeros(0, np.int64),
            dense=dense_index(dim),
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
        """Every dense row in float16: each chunk's own vector followed by its windows'."""
        return stored_rows(self.dense)

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
        postings, vocab, lengths = self._postings_with(keep, add)
        # One pass for the sizes, one to encode: `add` may make its vectors as it is read.
        new = np.array([(a[0], a[1], np.size(a[3]) // self.dim) for a in add], np.int64)
        new = new.reshape(-1, 3)
        counts = self.vector_counts()
        sizes = np.concatenate([counts[keep], new[:, 2]])
        dense = dense_index(self.dim, int(sizes.sum()))
        rows = stored_rows(dense)
        kept = int(counts[keep].sum())
        if kept:  # straight into the new storage: no third copy of the vectors
            np.compress(np.repeat(keep, counts), self.vectors(), axis=0, out=rows[:kept])
        for start in range(0, len(add), ENCODE_BATCH):
            end = min(start + ENCODE_BATCH, len(add))
            batch = [np.asarray(add[i][3]).reshape(-1, self.dim) for i in range(start, end)]
            # numpy rounds to nearest even, as live.sync does (faiss's encoder rounds ties up).
            size = sum(len(vectors) for vectors in batch)
            np.concatenate(batch, out=rows[kept : kept + size], casting="same_kind")
            kept += size
        return Snapshot(
            generation=generation,
            model=self.model,
            dim=self.dim,
            ids=np.concatenate([self.ids[keep], new[:, 0]]),
            document_ids=np.concatenate([self.document_ids[keep], new[:, 1]]),
            dense=dense,
            starts=np.cumsum(sizes) - sizes,
            postings=postings,
            doc_len=np.concatenate([self.doc_len[keep], np.asarray(lengths, np.float32)]),
            vocab=vocab,
        )

    def _postings_with(
        self, keep: np.ndarray, add: Sequence[tuple[int, int, str, np.ndarray]]
    ) -> tuple["sparse.csc_matrix", list[str], list[int]]:
        """The kept rows' postings followed by the added texts', the vocabulary grown by their
        new terms, and the added texts' lengths in terms."""
        from scipy import sparse

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
        return postings, vocab, lengths
