"""What a new segment is made of: chunks (their texts tokenized here, their vectors made float16),
or the live rows of the segments a merge joins (their postings joined term by term and their
vectors copied, no text read again)."""

from array import array
from collections import Counter
from collections.abc import Iterator, Sequence

import numpy as np

from apps.vault.search.segment import Rows, Segment
from apps.vault.tokenize import tokenize

BATCH = 4096  # chunks whose vectors are encoded or copied at a time


def from_chunks(
    add: Sequence[tuple[int, int, str, np.ndarray]], dim: int
) -> tuple[Rows, Iterator[np.ndarray]]:
    """Rows of `add` (id, document, text, vectors: one row per vector, its own then its
    windows') and their vectors as float16 batches. `add` is read twice, once for the rows and
    once for the vectors, so it may make each chunk's vectors as it is read."""
    term_ids: dict[str, int] = {}
    rows, columns, counts = array("i"), array("i"), array("f")
    chunk_ids, documents, lengths, sizes = array("q"), array("q"), [], []
    for row, (chunk_id, document_id, text, vectors) in enumerate(add):
        chunk_ids.append(chunk_id)
        documents.append(document_id)
        terms = tokenize(text)
        lengths.append(len(terms))
        sizes.append(np.size(vectors) // dim)
        frequencies = Counter(terms)  # counted in C; new terms get ids in first-seen order
        for term in frequencies:
            columns.append(term_ids.setdefault(term, len(term_ids)))
        rows.extend([row] * len(frequencies))
        counts.extend(frequencies.values())
    terms = sorted(term_ids)
    order = np.empty(len(terms), np.int32)  # first-seen id → sorted position
    order[[term_ids[term] for term in terms]] = np.arange(len(terms), dtype=np.int32)
    postings = _by_term(
        np.frombuffer(rows, np.int32),
        order[np.frombuffer(columns, np.int32)],
        np.frombuffer(counts, np.float32),
        len(terms),
    )
    rows_out = Rows(
        np.frombuffer(chunk_ids, np.int64),
        np.frombuffer(documents, np.int64),
        np.array(sizes, np.int64),
        np.array(lengths, np.float32),
        terms,
        *postings,
    )

    def batches() -> Iterator[np.ndarray]:
        for start in range(0, len(add), BATCH):
            end = min(start + BATCH, len(add))
            # numpy rounds to nearest even, as the database's float32 is read everywhere.
            yield np.concatenate(
                [np.asarray(add[i][3]).reshape(-1, dim) for i in range(start, end)]
            ).astype(np.float16)

    return rows_out, batches()


def from_segments(
    segments: Sequence[Segment], alive: Sequence[np.ndarray]
) -> tuple[Rows, Iterator[np.ndarray]]:
    """The rows of these segments that `alive` keeps, in order, and their vectors."""
    terms = sorted(set().union(*(segment.vocabulary.terms() for segment in segments)))
    position = {term: i for i, term in enumerate(terms)}
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    first = 0
    for segment, keep in zip(segments, alive, strict=True):
        renumbered = np.cumsum(keep) - 1 + first
        mapping = np.array([position[t] for t in segment.vocabulary.terms()], np.int32)
        columns = np.repeat(mapping, np.diff(segment.indptr))
        held = keep[segment.indices]
        parts.append((renumbered[segment.indices[held]], columns[held], segment.tf[held]))
        first += int(keep.sum())
    rows, columns, tf = (np.concatenate([p[i] for p in parts]) for i in range(3))
    indptr, indices, tf = _by_term(rows.astype(np.int32), columns, tf, len(terms))
    rows_out = Rows(
        np.concatenate([s.ids[k] for s, k in zip(segments, alive, strict=True)]),
        np.concatenate(
            [s.documents[s.document_codes[k]] for s, k in zip(segments, alive, strict=True)]
        ),
        np.concatenate([s.vector_counts()[k] for s, k in zip(segments, alive, strict=True)]),
        np.concatenate([s.doc_len[k] for s, k in zip(segments, alive, strict=True)]),
        terms,
        indptr,
        indices,
        tf,
    )
    return rows_out, _copied(segments, alive)


def _copied(segments: Sequence[Segment], alive: Sequence[np.ndarray]) -> Iterator[np.ndarray]:
    for segment, keep in zip(segments, alive, strict=True):
        kept = np.flatnonzero(keep)
        counts = segment.vector_counts()
        for start in range(0, len(kept), BATCH):
            rows = kept[start : start + BATCH]
            sizes = counts[rows]
            first = np.cumsum(sizes) - sizes
            at = np.repeat(segment.starts[rows] - first, sizes) + np.arange(int(sizes.sum()))
            yield segment.vectors()[at]


def _by_term(
    rows: np.ndarray, columns: np.ndarray, tf: np.ndarray, terms: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Postings (row, column, tf) as CSC arrays: by column, rows ascending within one."""
    order = np.lexsort((rows, columns))
    indptr = np.zeros(terms + 1, np.int64)
    np.cumsum(np.bincount(columns, minlength=terms), out=indptr[1:])
    return indptr, rows[order].astype(np.int32), tf[order].astype(np.float32)
