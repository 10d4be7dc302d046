"""The snapshot: the index at one generation of the database, as segments (apps/vault/search/
segment.py) and the chunk ids each holds that are no longer live (tombstones). Never changed:
added chunks make a new small segment beside the others, removed ones a tombstone, and a merge
(apps/vault/search/merging.py) joins segments into one without their dead rows."""

import copy
import tempfile
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from apps.vault.search import building
from apps.vault.search.ranking import Retrieval
from apps.vault.search.segment import Segment, mapped, write_segment

SEGMENTS = "segments"  # the folder of the segments, under the index's folder


class Snapshot(Retrieval):
    """Dense and BM25 retrievers over the same rows, the rows of its segments one after the
    other; row i is chunk `ids[i]`, live unless `alive[i]` is False (None: all live)."""

    def __init__(
        self,
        *,
        generation: int,
        model: str,
        dim: int,
        folder: Path,
        segments: Sequence[Segment] = (),
        dead: dict[str, np.ndarray] | None = None,
        keep: object = None,
    ) -> None:
        self.generation = generation
        self.key: tuple = ()  # (directory, generation, model) once a process adopts it
        self.model = model
        self.dim = dim
        self.folder = folder
        self.keep = keep  # a temporary folder lives as long as the snapshots in it
        self.segments = list(segments)
        names = {segment.name for segment in self.segments}
        self.dead = {name: ids for name, ids in (dead or {}).items() if len(ids) and name in names}
        sizes = [len(segment) for segment in self.segments]
        self.offsets = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64)
        self.ids = self._joined(lambda s: s.ids, np.int64)
        self.doc_len = self._joined(lambda s: s.doc_len, np.float32)
        self.alive = None
        if self.dead:
            self.alive = self._joined(
                lambda s: ~np.isin(s.ids, self.dead.get(s.name, np.zeros(0, np.int64))), bool
            )
        self.live = len(self.ids) if self.alive is None else int(self.alive.sum())
        lengths = self.doc_len if self.alive is None else self.doc_len[self.alive]
        self.avgdl = float(lengths.mean()) if len(lengths) else 1.0

    def _joined(self, part, dtype) -> np.ndarray:
        """One array of the segments' rows; with one segment its own array, so what is mapped
        stays shared with the other processes instead of copied into each."""
        parts = [part(s) for s in self.segments]
        if len(parts) == 1:
            return parts[0].astype(dtype, copy=False)
        return np.concatenate([np.zeros(0, dtype)] + parts).astype(dtype, copy=False)

    @classmethod
    def empty(cls, generation: int, model: str, dim: int, folder: Path | None = None) -> "Snapshot":
        """No chunks; segments go under `folder`, or a temporary folder that is removed with
        the last snapshot made from this one (tests, benchmarks)."""
        keep = None
        if folder is None:
            keep = tempfile.TemporaryDirectory(prefix="cognivault-index-")
            folder = Path(keep.name)
        return cls(generation=generation, model=model, dim=dim, folder=folder, keep=keep)

    def __len__(self) -> int:
        return self.live

    def chunk_ids(self) -> np.ndarray:
        """The live chunks' ids, in row order."""
        return self.ids if self.alive is None else self.ids[self.alive]

    def relabelled(self, generation: int) -> "Snapshot":
        """The same rows under a new generation (the live set did not change)."""
        twin = copy.copy(self)
        twin.generation = generation
        return twin

    def vector_counts(self) -> np.ndarray:
        """Each live chunk's number of vectors, in row order."""
        counts = self._joined(lambda s: s.vector_counts(), np.int64)
        return counts if self.alive is None else counts[self.alive]

    def document_ids(self) -> np.ndarray:
        """Each row's document id (worked out when asked: searching never needs all of them)."""
        return self._joined(lambda s: s.documents[s.document_codes], np.int64)

    def vectors_of(self, chunk_id: int) -> np.ndarray:
        """A live chunk's float16 vectors: its own, then its windows'."""
        row = int(np.flatnonzero((self.ids == chunk_id) & self._live_rows())[0])
        segment, start, _ = next(s for s in self.spans() if s[1] <= row < s[2])
        local = row - start
        first = int(segment.starts[local])
        count = int(segment.counts_of(np.array([local]))[0])
        return segment.vectors()[first : first + count]

    def _live_rows(self) -> np.ndarray:
        return np.ones(len(self.ids), bool) if self.alive is None else self.alive

    # --- changes: a new snapshot from this one ---

    def changed(
        self,
        generation: int,
        *,
        remove: Iterable[int] = (),
        add: Sequence[tuple[int, int, str, np.ndarray]] = (),
    ) -> "Snapshot":
        """A new snapshot where the `remove` chunk ids are dead and `add` (id, doc, text,
        vectors: one row per vector, its own then its windows') is a new segment. Costs the
        change, not the index: no row of the other segments is copied."""
        remove = np.unique(np.fromiter(remove, np.int64))
        dead = dict(self.dead)
        for segment in self.segments:
            hit = segment.ids[np.isin(segment.ids, remove)]
            if len(hit):
                dead[segment.name] = np.union1d(dead.get(segment.name, hit[:0]), hit)
        segments = list(self.segments)
        if len(add):
            rows, vectors = building.from_chunks(add, self.dim)
            segments.append(self.written(rows, vectors))
        return self.with_segments(generation, segments, dead)

    def written(self, rows, vectors) -> Segment:
        folder = self.folder / SEGMENTS / uuid.uuid4().hex[:16]
        write_segment(folder, rows, vectors, self.dim)
        return mapped(folder)

    def with_segments(
        self, generation: int, segments: Sequence[Segment], dead: dict[str, np.ndarray]
    ) -> "Snapshot":
        return Snapshot(
            generation=generation,
            model=self.model,
            dim=self.dim,
            folder=self.folder,
            segments=segments,
            dead=dead,
            keep=self.keep,
        )

    def merged(self, names: Sequence[str]) -> tuple[Segment, dict[str, np.ndarray]]:
        """One new segment of the live rows of the named segments (written, not yet part of
        any snapshot), and the dead ids it was made without, by segment name."""
        chosen = [segment for segment in self.segments if segment.name in names]
        dropped = {s.name: self.dead.get(s.name, np.zeros(0, np.int64)) for s in chosen}
        alive = [~np.isin(s.ids, dropped[s.name]) for s in chosen]
        return self.written(*building.from_segments(chosen, alive)), dropped
