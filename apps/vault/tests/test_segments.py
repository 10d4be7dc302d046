"""Segments: added chunks as a new segment, removed ones as tombstones, merges; the approximate
index of a large segment against the exact ranking; one mapped copy of the files; a merge killed
at any point losing nothing; the change journal reading again only what changed."""

import fcntl
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from django.conf import settings as django_settings

from apps.vault.models import Document
from apps.vault.search import ann, live, merging, store
from apps.vault.search import segment as segment_module
from apps.vault.search.merging import committed_merge
from apps.vault.search.models import IndexChange, IndexState
from apps.vault.search.snapshot import Snapshot
from apps.vault.tests.chunks import add_chunks, retire, use_embedded_model
from tests.helpers.documents import make_document

DIM = 16
WORDS = ["zelle", "mitose", "meiose", "erbgut", "teilung", "kern", "plasma", "membran"]


def chunk(chunk_id: int, rng: np.random.Generator) -> tuple[int, int, str, np.ndarray]:
    vectors = rng.standard_normal((int(rng.integers(1, 4)), DIM)).astype(np.float32)
    text = " ".join(rng.choice(WORDS, int(rng.integers(2, 9)))) + f" word{chunk_id}"
    return chunk_id, chunk_id % 7, text, vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def rebuilt(snapshot: Snapshot, rows: dict[int, tuple]) -> Snapshot:
    """One segment of the live chunks, in the snapshot's row order."""
    return Snapshot.empty(1, "test", DIM).changed(
        1, add=[rows[i] for i in snapshot.chunk_ids().tolist()]
    )


def test_segments_added_removed_and_merged_score_as_one_index_of_the_live_chunks():
    rng = np.random.default_rng(3)
    rows: dict[int, tuple] = {}
    snapshot = Snapshot.empty(1, "test", DIM)
    merges = 0
    for step in range(14):
        gone = rng.choice(sorted(rows), size=min(len(rows), 3), replace=False).tolist()
        new = [chunk(max(rows, default=0) + i + 1, rng) for i in range(int(rng.integers(1, 9)))]
        # A chunk re-embedded in place comes back under its id with new vectors.
        redone = [chunk(gone[0], rng)] if gone and step % 3 == 0 else []
        snapshot = snapshot.changed(step, remove=gone, add=new + redone)
        for chunk_id in gone:
            rows.pop(chunk_id)
        rows.update((row[0], row) for row in new + redone)
        if step % 4 == 3:  # merge some segments, as the worker does
            names = [s.name for s in snapshot.segments[-3:]]
            snapshot = committed_merge(snapshot, names, *snapshot.merged(names))
            merges += 1
        assert sorted(snapshot.chunk_ids().tolist()) == sorted(rows)
        whole = rebuilt(snapshot, rows)
        live_rows = snapshot.allowed_rows(None)
        live_rows = np.ones(len(snapshot.ids), bool) if live_rows is None else live_rows
        for query in ("zelle", "mitose kern", "teil", f"word{max(rows)}"):
            assert np.allclose(snapshot.bm25_scores(query)[live_rows], whole.bm25_scores(query))
            assert (
                snapshot.ids[snapshot.sparse_ranking(query, None, 10)].tolist()
                == whole.ids[whole.sparse_ranking(query, None, 10)].tolist()
            )
        for chunk_id in list(rows)[:5]:
            query = rows[chunk_id][3][0]
            dense = snapshot.ids[snapshot.dense_ranking(query, None, 5, -1.0)].tolist()
            assert dense == whole.ids[whole.dense_ranking(query, None, 5, -1.0)].tolist()
            assert dense[0] == chunk_id
        # Neither retriever returns a dead row, and both return every live one.
        everything = len(snapshot.ids) + 5
        assert {
            int(i) for i in snapshot.ids[snapshot.dense_ranking(query, None, everything, -2.0)]
        } == set(rows)
        assert {int(i) for i in snapshot.ids[snapshot.sparse_ranking("word", None, everything)]} | {
            int(i) for i in snapshot.ids[snapshot.sparse_ranking(" ".join(WORDS), None, everything)]
        } == set(rows)
    assert merges == 3 and len(snapshot.segments) < 14


def clustered(rng: np.random.Generator, chunks: int, dim: int, vectors: int = 5) -> np.ndarray:
    """Vectors with the structure of real ones: documents around topics, chunks around their
    document, windows around their chunk."""
    topics = rng.standard_normal((40, dim)).astype(np.float32)
    documents = topics[rng.integers(0, 40, chunks // 10 + 1)]
    documents += 0.8 * rng.standard_normal(documents.shape).astype(np.float32)
    own = documents[np.arange(chunks) // 10] + 0.8 * rng.standard_normal((chunks, dim))
    rows = np.repeat(own, vectors, axis=0) + 0.5 * rng.standard_normal((chunks * vectors, dim))
    rows = rows.astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def exact_top(vectors: np.ndarray, query: np.ndarray, allowed: np.ndarray, n: int) -> set[int]:
    scores = (vectors.astype(np.float64) @ query).reshape(len(allowed), -1).max(axis=1)
    scores[~allowed] = -np.inf
    return set(np.argsort(-scores, kind="stable")[:n].tolist())


def test_the_approximate_index_finds_the_exact_top_7_in_the_vault_a_wide_and_a_narrow_scope(
    monkeypatch,
):
    monkeypatch.setattr(ann, "MIN_VECTORS", 10_000)
    monkeypatch.setattr(ann, "EXACT_VECTORS", 0)  # every scope through the approximate index
    rng = np.random.default_rng(5)
    chunks, dim = 4000, 32
    vectors = clustered(rng, chunks, dim)
    rows = [(i + 1, i // 10, f"chunk {i}", vectors[i * 5 : i * 5 + 5]) for i in range(chunks)]
    snapshot = Snapshot.empty(1, "test", dim).changed(1, add=rows)
    assert snapshot.segments[0].ann is not None  # above the threshold: the approximate path
    documents = np.unique(snapshot.document_ids())
    narrow = documents[rng.choice(len(documents), 4, replace=False)]  # 1 % of the chunks
    wide = documents[documents % 10 != 3]  # 90 %
    found = expected = 0
    for scope in (None, wide, narrow):
        allowed = (
            np.ones(chunks, bool) if scope is None else np.isin(snapshot.document_ids(), scope)
        )
        rows_allowed = None if scope is None else allowed
        for _ in range(100):
            query = vectors[rng.integers(0, len(vectors))] + 0.6 * rng.standard_normal(dim)
            query = (query / np.linalg.norm(query)).astype(np.float32)
            ranking = snapshot.dense_ranking(query, rows_allowed, 7, -1.0).tolist()
            assert len(ranking) == 7 and allowed[ranking].all()
            found += len(set(ranking) & exact_top(vectors, query, allowed, 7))
            expected += 7
    assert found / expected >= 0.98


def test_a_segment_is_mapped_from_its_files_not_read_into_memory(monkeypatch, tmp_path):
    monkeypatch.setattr(ann, "MIN_VECTORS", 1000)
    rng = np.random.default_rng(1)
    rows = [(i + 1, 1, f"word{i}", clustered(rng, 1, DIM)) for i in range(400)]
    snapshot = Snapshot.empty(1, "test", DIM, tmp_path).changed(1, add=rows)
    store.save(snapshot, tmp_path, state=1)
    segment_module._mapped.clear()
    loaded, _ = store.load(tmp_path)
    [segment] = loaded.segments
    maps = Path("/proc/self/maps").read_text()
    for name in ("arrays.bin", "vectors.faiss", "ann.faiss"):
        assert str(segment.folder / name) in maps
    for array in (segment.ids, segment.indices, segment.vocabulary.text, segment.vectors()):
        assert not array.flags.writeable and not array.flags.owndata
    assert isinstance(segment.ids.base, np.memmap)


# A merge that says when it is halfway through writing its segment and waits there to be killed.
MERGE_HELD = """
import sys
from pathlib import Path
from apps.vault.search import merging, segment
write_arrays = segment.write_arrays
def held(path, arrays):
    write_arrays(path, arrays)
    print("writing", flush=True)
    sys.stdin.readline()
segment.write_arrays = held
merging.merge(Path(sys.argv[1]))
print("merged", flush=True)
"""


def small_segments(directory: Path, count: int = 8) -> Snapshot:
    rng = np.random.default_rng(9)
    snapshot = Snapshot.empty(1, "test", DIM, directory)
    for n in range(count):
        snapshot = snapshot.changed(
            n, add=[chunk(n * 1000 + i, rng) for i in range(1, 1500)], remove=[n * 1000 - 500]
        )
    store.save(snapshot, directory, state=count)
    return snapshot


def writer_lock_is_free(directory: Path) -> bool:
    with open(directory / ".lock", "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(handle, fcntl.LOCK_UN)
        return True


def held_child(script: str, directory: Path, data: Path) -> subprocess.Popen:
    """A Django process running `script` on the index in `directory`; it says "writing" when
    halfway through writing a segment and waits there on its stdin."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "cognivault_site.settings",
        "DATA_DIR": str(data),
    }
    return subprocess.Popen(
        [sys.executable, "-c", "import django; django.setup()\n" + script, str(directory)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        cwd=django_settings.BASE_DIR,
    )


@pytest.mark.timeout(600)
def test_a_merge_killed_while_writing_loses_nothing_and_never_holds_up_a_search(tmp_path):
    directory = tmp_path / "index"
    before = small_segments(directory)
    assert merging.chosen(before)
    merger = held_child(MERGE_HELD, directory, tmp_path / "data")
    try:
        assert merger.stdout.readline().strip() == b"writing"  # halfway through its segment
        assert any(p.name.endswith(".tmp") for p in (directory / "segments").iterdir())
        # Meanwhile a search and a change go on: the merge holds no lock they need.
        assert writer_lock_is_free(directory)
        with store.writer_lock(directory):
            during, _ = store.load(directory)
            added = during.changed(9, add=[(99_999, 1, "zelle neu", np.eye(DIM)[:1])])
            store.save(added, directory, state=9)
        assert added.ids[added.sparse_ranking("neu", None, 5)].tolist() == [99_999]
        merger.send_signal(signal.SIGKILL)
    finally:
        merger.kill()
        merger.wait()
    after, state = store.load(directory)
    assert state == 9
    expected = sorted([*before.chunk_ids().tolist(), 99_999])
    assert sorted(after.chunk_ids().tolist()) == expected
    assert merging.merge(directory) >= 1  # the next merge finishes the work and tidies up
    merged, _ = store.load(directory)
    assert sorted(merged.chunk_ids().tolist()) == expected
    assert sorted(p.name for p in (directory / "segments").iterdir()) == sorted(
        s.name for s in merged.segments
    )
    for query in ("zelle mitose", "neu"):
        assert np.allclose(live_scores(merged, query), live_scores(after, query))


# A change that says when it is halfway through writing its new segment and waits there.
CHANGE_HELD = """
import sys
from pathlib import Path
import numpy as np
from apps.vault.search import segment, store
directory = Path(sys.argv[1])
write_arrays = segment.write_arrays
def held(path, arrays):
    write_arrays(path, arrays)
    print("writing", flush=True)
    sys.stdin.readline()
segment.write_arrays = held
with store.writer_lock(directory):
    snapshot, state = store.load(directory)
    new = [(99_999, 1, "zelle neu", np.eye(16, dtype=np.float32)[:1])]
    store.save(snapshot.changed(state + 1, remove=[1001], add=new), directory, state + 1)
"""


@pytest.mark.timeout(600)
def test_a_change_killed_while_writing_its_segment_leaves_the_index_as_it_was(tmp_path):
    directory = tmp_path / "index"
    before = small_segments(directory, count=2)
    writer = held_child(CHANGE_HELD, directory, tmp_path / "data")
    try:
        assert writer.stdout.readline().strip() == b"writing"
        assert not writer_lock_is_free(directory)  # it holds the writer lock while it writes
        writer.send_signal(signal.SIGKILL)
        writer.wait()
    finally:
        writer.kill()
        writer.wait()
    assert writer_lock_is_free(directory)  # the lock died with it
    after, state = store.load(directory)
    assert state == 2 and sorted(after.chunk_ids().tolist()) == sorted(before.chunk_ids().tolist())
    assert [s.name for s in after.segments] == [s.name for s in before.segments]
    store.clean(directory, after)  # the half-written segment goes with the next clean-up
    assert sorted(p.name for p in (directory / "segments").iterdir()) == sorted(
        s.name for s in after.segments
    )


def live_scores(snapshot: Snapshot, query: str) -> list[float]:
    """Each live chunk's BM25 score, by chunk id."""
    scores = dict(zip(snapshot.ids.tolist(), snapshot.bm25_scores(query).tolist(), strict=True))
    return [scores[chunk_id] for chunk_id in sorted(snapshot.chunk_ids().tolist())]


# --- From the database ---------------------------------------------------------------------------


@pytest.fixture
def two_documents(settings, tess):
    use_embedded_model(settings)
    first = make_document(tess, "zelle.txt", scope=Document.Scope.CLASS)
    second = make_document(tess, "chemie.txt", scope=Document.Scope.CLASS)
    add_chunks(first, ["Die Zelle teilt sich.", "Mitose hat vier Phasen."])
    add_chunks(second, ["Säuren und Basen.", "Salze sind Ionenverbindungen."])
    yield first, second
    live.forget()


def test_a_changed_document_is_read_again_alone(two_documents, tess):
    first, second = two_documents
    built = live.current()
    retire(first)
    third = make_document(tess, "physik.txt", scope=Document.Scope.CLASS)
    add_chunks(third, ["Kraft ist Masse mal Beschleunigung."])
    caught_up = live.current()
    assert caught_up.segments[: len(built.segments)] == built.segments  # nothing rewritten
    [new] = caught_up.segments[len(built.segments) :]
    assert new.ids.tolist() == list(third.chunks.values_list("id", flat=True))
    assert sorted(caught_up.chunk_ids().tolist()) == sorted(
        [*second.chunks.values_list("id", flat=True), *third.chunks.values_list("id", flat=True)]
    )


def test_a_change_that_names_no_document_compares_every_chunk(two_documents):
    first, second = two_documents
    live.current()
    first.chunks.all().delete()  # not through the app: the journal says "anything"
    IndexState.bump()
    assert sorted(live.current().chunk_ids().tolist()) == sorted(
        second.chunks.values_list("id", flat=True)
    )


def test_the_journal_keeps_only_what_the_stored_index_has_not_read(two_documents, tess):
    first, _ = two_documents
    live.current()
    assert not IndexChange.objects.exists()
    retire(first)
    assert IndexChange.objects.filter(document_id=first.pk).exists()
    live.current()
    assert not IndexChange.objects.exists()


def test_an_older_copy_of_the_index_than_the_journal_compares_every_chunk(two_documents, tess):
    first, second = two_documents
    live.current()
    older = {path.name: path.read_bytes() for path in store.index_dir().glob("manifest.json")}
    retire(first)
    live.current()  # reads the change and prunes the journal
    for name, content in older.items():  # the index put back as it was before (a restore)
        (store.index_dir() / name).write_bytes(content)
    live.forget()
    assert sorted(live.current().chunk_ids().tolist()) == sorted(
        second.chunks.values_list("id", flat=True)
    )
