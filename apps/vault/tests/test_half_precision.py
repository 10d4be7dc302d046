"""The dense half in float16: the same ranking as exact float32, removal by chunk id, and an
index of an older format rebuilt rather than misread."""

import json

import numpy as np
import pytest

from apps.vault.models import Document
from apps.vault.search import live, store
from apps.vault.search.snapshot import Snapshot
from apps.vault.tests.chunks import add_chunks, use_embedded_model
from tests.helpers.documents import make_document

DIM = 64
VECTORS = 5  # a chunk's own vector and its windows'


def unit_rows(rng: np.random.Generator, n: int, dim: int = DIM) -> np.ndarray:
    rows = rng.standard_normal((n, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def exact_ranking(vectors: np.ndarray, query: np.ndarray, allowed: np.ndarray, n: int) -> list:
    """Chunk rows by their best float32 vector's inner product, computed in float64."""
    scores = (vectors.astype(np.float64) @ query).reshape(-1, VECTORS).max(axis=1)
    scores[~allowed] = -np.inf
    return np.argsort(-scores, kind="stable")[:n].tolist()


@pytest.fixture
def random_snapshot() -> tuple[Snapshot, np.ndarray]:
    rng = np.random.default_rng(11)
    vectors = unit_rows(rng, 3000 * VECTORS)
    rows = [
        (i + 1, i % 30, f"chunk {i}", vectors[i * VECTORS : (i + 1) * VECTORS]) for i in range(3000)
    ]
    return Snapshot.empty(1, "test", DIM).changed(1, add=rows), vectors


def test_the_float16_index_finds_the_exact_float32_top_7(random_snapshot):
    snapshot, vectors = random_snapshot
    rng = np.random.default_rng(12)
    allowed = np.isin(snapshot.document_ids(), rng.choice(30, 24, replace=False))
    found = expected = 0
    for query in unit_rows(rng, 200):
        for scope in (None, allowed):
            exact = exact_ranking(
                vectors, query, np.ones(3000, bool) if scope is None else scope, 7
            )
            ranking = snapshot.dense_ranking(query, scope, 7, -1.0).tolist()
            assert len(ranking) == 7 and (scope is None or scope[ranking].all())
            found += len(set(ranking) & set(exact))
            expected += 7
    assert snapshot.segments[0].vectors().dtype == np.float16
    assert found / expected >= 0.99


def test_a_chunk_is_found_when_all_its_neighbours_are_one_chunks_windows():
    rng = np.random.default_rng(5)
    query = unit_rows(rng, 1)[0]
    close = np.repeat(query[None, :], 40, axis=0)  # 40 windows all nearer than anything else
    rows = [(1, 1, "long", close), *((i, 1, "short", unit_rows(rng, 1)) for i in range(2, 30))]
    snapshot = Snapshot.empty(1, "test", DIM).changed(1, add=rows)
    ranking = snapshot.ids[snapshot.dense_ranking(query, None, 20, -1.0)].tolist()
    assert len(ranking) == 20 and ranking[0] == 1 and len(set(ranking)) == 20


def test_removing_chunks_removes_exactly_their_vectors(random_snapshot):
    snapshot, vectors = random_snapshot
    gone = set(range(1, 3001, 3))
    smaller = snapshot.changed(2, remove=gone)
    assert set(smaller.chunk_ids().tolist()) == set(range(1, 3001)) - gone
    assert len(smaller) == 2000 and smaller.vector_counts().sum() == len(smaller) * VECTORS
    for chunk_id in smaller.chunk_ids().tolist():
        own = vectors[(chunk_id - 1) * VECTORS : chunk_id * VECTORS].astype(np.float16)
        assert np.array_equal(smaller.vectors_of(chunk_id), own)
    for chunk_id in (1, 4, 2998):  # a removed chunk's own vector finds it no more
        ranking = smaller.dense_ranking(vectors[(chunk_id - 1) * VECTORS], None, 7, -1.0)
        assert chunk_id not in smaller.ids[ranking].tolist()
    kept = vectors[VECTORS]  # chunk 2's own vector still finds chunk 2 first
    assert smaller.ids[smaller.dense_ranking(kept, None, 1, -1.0)].tolist() == [2]


def test_an_index_of_an_older_format_is_rebuilt_not_misread(settings, tess):
    use_embedded_model(settings)
    document = make_document(tess, "zelle.txt", scope=Document.Scope.CLASS)
    chunks = add_chunks(document, ["Die Zelle teilt sich.", "Mitose hat vier Phasen."])
    built = live.current()
    manifest = store.index_dir() / store.MANIFEST
    older = {**json.loads(manifest.read_text()), "format": 4, "segments": []}
    manifest.write_text(json.dumps(older))
    (store.index_dir() / "hybrid.npz").write_bytes(b"the single file of format 4")
    assert store.load(store.index_dir()) is None
    live.forget()
    rebuilt = live.current()
    assert sorted(rebuilt.chunk_ids().tolist()) == sorted(c.id for c in chunks)
    for chunk in chunks:
        assert np.array_equal(rebuilt.vectors_of(chunk.id), built.vectors_of(chunk.id))
    assert json.loads(manifest.read_text())["format"] == store.FORMAT
    assert not (store.index_dir() / "hybrid.npz").exists()
    live.forget()
