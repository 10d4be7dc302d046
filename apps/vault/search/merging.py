"""Merging segments in the background (the jobs worker runs `merge`): the small segments each
ingestion adds are joined into one, segments of a like size are joined as they pile up, and a
segment with many dead rows is written again without them.

A merge reads and writes outside the writer lock, so searching goes on from the segments there
are; only its commit (a new manifest naming the merged segment instead of its parts) takes the
lock. Killed at any point, it leaves the manifest as it was: the parts stay, and an unnamed
half-written segment is removed by the next clean-up.
"""

import logging
from pathlib import Path

import numpy as np

from apps.vault.search import ann
from apps.vault.search.segment import Segment
from apps.vault.search.snapshot import Snapshot
from apps.vault.search.store import clean, index_dir, load, merge_lock, save, writer_lock

logger = logging.getLogger(__name__)

SMALL_SEGMENTS = 6  # segments without an approximate index before they are joined
TIER = 4  # this many segments within a factor TIER of each other's size are joined
DEAD_SHARE = 0.25  # a segment with more dead rows than this is written again without them

# Named, not imported: tasks.py imports this module to run the merge.
MERGE_TASK = "apps.vault.tasks.merge_segments"


def chosen(snapshot: Snapshot) -> list[str]:
    """The names of the segments to merge next, none when nothing is due."""
    live = {s.name: len(s) - len(snapshot.dead.get(s.name, ())) for s in snapshot.segments}
    for segment in snapshot.segments:
        if live[segment.name] < (1 - DEAD_SHARE) * len(segment):
            return [segment.name]
    small = [s for s in snapshot.segments if s.ann is None]
    vectors = sum(int(s.flat.ntotal) for s in small)
    if len(small) > SMALL_SEGMENTS or (len(small) > 1 and ann.wanted(vectors)):
        return [s.name for s in small]
    large = sorted((s for s in snapshot.segments if s.ann is not None), key=lambda s: live[s.name])
    for i in range(len(large) - TIER + 1):
        tier = large[i : i + TIER]
        if live[tier[-1].name] <= TIER * live[tier[0].name]:
            return [s.name for s in tier]
    return []


def merge(directory: Path | None = None) -> int:
    """Merge until nothing is due; returns how many merges were committed. Another merge
    running makes this one return at once (running it twice is harmless)."""
    directory = directory or index_dir()
    done = 0
    with merge_lock(directory) as free:
        while free:
            with writer_lock(directory):
                stored = load(directory)
            names = chosen(stored[0]) if stored else []
            if not names:
                break
            segment, dropped = stored[0].merged(names)
            with writer_lock(directory):
                current = load(directory)
                if current is None or not set(names) <= {s.name for s in current[0].segments}:
                    break  # rebuilt meanwhile: the next clean-up removes the merged segment
                committed = committed_merge(current[0], names, segment, dropped)
                save(committed, directory, current[1])
                clean(directory, committed, merging=True)
            done += 1
    return done


def committed_merge(
    current: Snapshot, names: list[str], merged: Segment, dropped: dict[str, np.ndarray]
) -> Snapshot:
    """`current` with the named segments replaced by the merged one, at the first's place;
    the chunks of its parts that died while it was written are dead in it."""
    late = np.concatenate(
        [np.zeros(0, np.int64)]
        + [np.setdiff1d(current.dead.get(name, dropped[name]), dropped[name]) for name in names]
    )
    dead = {name: ids for name, ids in current.dead.items() if name not in names}
    if len(hit := merged.ids[np.isin(merged.ids, late)]):
        dead[merged.name] = np.sort(hit)
    segments: list[Segment] = []
    for segment in current.segments:
        if segment.name not in names:
            segments.append(segment)
        elif merged not in segments:
            segments.append(merged)
    return current.with_segments(current.generation, segments, dead)
