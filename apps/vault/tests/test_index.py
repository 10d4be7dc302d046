import os

import faiss
import numpy as np
import pytest

from apps.llm import gateway
from apps.vault.models import Chunk, Document
from apps.vault.search import live, reembed, store
from apps.vault.search import segment as segment_module
from apps.vault.search.ranking import RRF_K, fuse
from apps.vault.search.snapshot import Snapshot
from apps.vault.tasks import reembed_chunks
from apps.vault.tests.chunks import add_chunks, retire, use_embedded_model
from tests.helpers.documents import make_document

DIM = 8


def unit(seed: int, dim: int = DIM) -> np.ndarray:
    vector = np.random.default_rng(seed).normal(size=dim).astype(np.float32)
    return vector / np.linalg.norm(vector)


def snapshot_of(texts: dict[int, str], documents: dict[int, int] | None = None) -> Snapshot:
    documents = documents or {}
    rows = [(cid, documents.get(cid, 1), text, unit(cid)) for cid, text in texts.items()]
    return Snapshot.empty(1, "test-model", DIM).changed(1, add=rows)


@pytest.fixture(autouse=True)
def _embedded(settings):
    use_embedded_model(settings)
    yield
    live.forget()


# --- Fusion ---------------------------------------------------------------------------------------


def test_rrf_scores_are_the_sum_of_reciprocal_ranks_with_k_60():
    fused = fuse([10, 20, 30], [30, 40], k=7)
    scores = {hit.chunk_id: hit.score for hit in fused}
    assert RRF_K == 60
    assert scores[10] == pytest.approx(1 / 61)
    assert scores[30] == pytest.approx(1 / 63 + 1 / 61)
    assert scores[40] == pytest.approx(1 / 62)
    assert [hit.chunk_id for hit in fused] == [30, 10, 20, 40]


def test_rrf_merges_a_chunk_found_by_both_retrievers_and_keeps_both_ranks():
    fused = fuse([5, 6], [6, 7], k=7)
    assert [hit.chunk_id for hit in fused].count(6) == 1
    six = next(hit for hit in fused if hit.chunk_id == 6)
    assert (six.dense_rank, six.sparse_rank) == (2, 1)
    seven = next(hit for hit in fused if hit.chunk_id == 7)
    assert (seven.dense_rank, seven.sparse_rank) == (None, 2)


def test_rrf_returns_only_the_top_k():
    assert len(fuse(list(range(30)), list(range(30, 60)), k=7)) == 7


# --- BM25 -----------------------------------------------------------------------------------------


def test_a_compound_matches_a_query_for_one_of_its_words():
    snapshot = snapshot_of({1: "Die Prüfungsordnung gilt ab heute.", 2: "Das Wetter ist schön."})
    assert [int(snapshot.ids[r]) for r in snapshot.sparse_ranking("Prüfung", None, 20)] == [1]
    assert [int(snapshot.ids[r]) for r in snapshot.sparse_ranking("Ordnung", None, 20)] == [1]


def test_an_exact_word_outranks_the_same_word_inside_a_compound():
    snapshot = snapshot_of({1: "Die Prüfungsordnung gilt.", 2: "Die Prüfung gilt."})
    ranking = snapshot.sparse_ranking("Prüfung", None, 20)
    assert [int(snapshot.ids[r]) for r in ranking] == [2, 1]


def test_an_identifier_query_finds_the_chunk_that_contains_it():
    snapshot = snapshot_of(
        {1: "Siehe ISBN 978-0-553-41802-6.", 2: "Fehler 404B im Netz.", 3: "Regel § 3 Abs. 1"}
    )
    for query, expected in (("978-0-553-41802-6", 1), ("404b", 2), ("§3", 3)):
        ranking = snapshot.sparse_ranking(query, None, 20)
        assert int(snapshot.ids[ranking[0]]) == expected


# --- Add, remove, scope ---------------------------------------------------------------------------


def retrievers_hold(snapshot: Snapshot) -> tuple[set[int], set[int]]:
    """The chunk ids each retriever can return when asked for everything."""
    dense = snapshot.dense_ranking(unit(0), None, len(snapshot) + 5, min_score=-2.0)
    sparse = snapshot.sparse_ranking("common", None, len(snapshot) + 5)
    return {int(snapshot.ids[r]) for r in dense}, {int(snapshot.ids[r]) for r in sparse}


def test_adding_and_removing_keeps_both_retrievers_in_agreement():
    rng = np.random.default_rng(7)
    snapshot = Snapshot.empty(1, "test-model", DIM)
    alive: set[int] = set()
    next_id = 1
    for step in range(12):
        new = list(range(next_id, next_id + int(rng.integers(1, 6))))
        next_id = new[-1] + 1
        gone = set(rng.choice(sorted(alive), size=min(len(alive), 2), replace=False).tolist())
        rows = [(cid, 1, f"common word{cid}", unit(cid)) for cid in new]
        snapshot = snapshot.changed(step, remove=gone, add=rows)
        alive = (alive - gone) | set(new)
        dense, sparse = retrievers_hold(snapshot)
        assert dense == sparse == alive
        for cid in alive:  # each chunk's vector and words stayed with its id
            assert np.array_equal(snapshot.vectors_of(cid)[0], unit(cid).astype(np.float16))
            assert int(snapshot.ids[snapshot.sparse_ranking(f"word{cid}", None, 5)[0]]) == cid


def test_the_scope_is_applied_inside_both_retrievers_not_after_truncation():
    texts = {cid: "photosynthesis in the leaf" for cid in range(1, 41)}
    texts[99] = "photosynthesis, briefly"
    snapshot = snapshot_of(texts, documents={99: 2})
    query_vector = unit(5)  # chunk 5's own vector: document 1 wins every dense comparison
    everything = snapshot.search("photosynthesis", query_vector, None, k=7, min_score=-2.0)
    assert 99 not in [hit.chunk_id for hit in everything]
    scoped = snapshot.search("photosynthesis", query_vector, np.array([2]), k=7, min_score=-2.0)
    assert [(h.chunk_id, h.dense_rank, h.sparse_rank) for h in scoped] == [(99, 1, 1)]


def test_the_scope_bitmap_marks_exactly_the_rows_of_the_allowed_documents():
    rng = np.random.default_rng(3)
    documents = {cid: int(rng.integers(1, 30)) for cid in range(1, 201)}
    snapshot = snapshot_of({cid: f"word{cid}" for cid in documents}, documents)
    for allowed in (np.array([4, 7, 7, 12]), np.array([999]), np.array([], np.int64)):
        rows = snapshot.allowed_rows(allowed)
        assert np.array_equal(rows, np.isin(snapshot.document_ids(), allowed))
    assert snapshot.allowed_rows(None) is None
    smaller = snapshot.changed(2, remove=[1, 2])  # dead rows are never allowed
    rows = smaller.allowed_rows(np.array([documents[1], documents[3]]))
    assert np.array_equal(
        rows,
        np.isin(smaller.document_ids(), [documents[1], documents[3]])
        & ~np.isin(smaller.ids, [1, 2]),
    )
    assert np.array_equal(smaller.allowed_rows(None), ~np.isin(smaller.ids, [1, 2]))


def test_a_term_repeated_in_a_chunk_is_counted_each_time():
    snapshot = snapshot_of({1: "alpha beta alpha alpha", 2: "beta"})
    [segment] = snapshot.segments
    assert segment.vocabulary.terms() == ["alpha", "beta"]
    [alpha] = segment.vocabulary.find(["alpha"])
    postings = slice(segment.indptr[alpha], segment.indptr[alpha + 1])
    assert segment.indices[postings].tolist() == [0] and segment.tf[postings].tolist() == [3.0]
    assert snapshot.doc_len.tolist() == [4.0, 1.0]


def test_weak_dense_hits_are_dropped():
    snapshot = snapshot_of({1: "alpha", 2: "beta"})
    vector = unit(1)
    ranking = snapshot.dense_ranking(vector, None, 20, min_score=0.99)
    assert [int(snapshot.ids[r]) for r in ranking] == [1]


# --- Persistence ----------------------------------------------------------------------------------


def test_a_saved_index_loads_back_the_same(tmp_path):
    snapshot = Snapshot.empty(1, "test-model", DIM, tmp_path).changed(
        1, add=[(1, 1, "Prüfungsordnung § 3", unit(1)), (2, 9, "snake_case v2.1", unit(2))]
    )
    snapshot = snapshot.changed(2, remove=[1], add=[(3, 1, "Prüfung", unit(3))])
    store.save(snapshot, tmp_path, state=7)
    loaded, state = store.load(tmp_path)
    assert (loaded.generation, loaded.model, loaded.dim, state) == (2, "test-model", DIM, 7)
    assert loaded.chunk_ids().tolist() == [2, 3] and loaded.document_ids().tolist() == [1, 9, 1]
    assert [s.name for s in loaded.segments] == [s.name for s in snapshot.segments]
    assert np.array_equal(loaded.vectors_of(3), snapshot.vectors_of(3))
    assert np.array_equal(loaded.bm25_scores("prüfung"), snapshot.bm25_scores("prüfung"))
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".tmp")]


def test_a_damaged_index_reads_as_missing(tmp_path):
    snapshot = Snapshot.empty(1, "test-model", DIM, tmp_path).changed(1, add=[(1, 1, "a", unit(1))])
    store.save(snapshot, tmp_path, state=1)
    arrays = tmp_path / "segments" / snapshot.segments[0].name / "arrays.bin"
    arrays.write_bytes(arrays.read_bytes()[:100])
    segment_module._mapped.clear()  # as a process that never opened it
    assert store.load(tmp_path) is None
    (tmp_path / store.MANIFEST).write_text("{not json")
    assert store.load(tmp_path) is None


# --- From the database ----------------------------------------------------------------------------


@pytest.fixture
def class_document(tess) -> Document:
    return make_document(tess, "biologie.txt", scope=Document.Scope.CLASS)


def test_it_builds_from_the_database_and_saves_the_pair(class_document):
    add_chunks(class_document, ["Die Zelle teilt sich.", "Mitose hat vier Phasen."])
    snapshot = live.current()
    assert sorted(snapshot.chunk_ids().tolist()) == sorted(
        class_document.chunks.values_list("id", flat=True)
    )
    assert snapshot.model == gateway.embedding_model().name and snapshot.dim == 512
    stored, _ = store.load(store.index_dir())
    assert stored.chunk_ids().tolist() == snapshot.chunk_ids().tolist()


def test_it_catches_up_when_chunks_are_added_or_retired(class_document, tess):
    first = add_chunks(class_document, ["Die Zelle teilt sich."])
    assert live.current().chunk_ids().tolist() == [first[0].id]
    other = make_document(tess, "chemie.txt", scope=Document.Scope.CLASS)
    second = add_chunks(other, ["Säuren und Basen."])
    assert sorted(live.current().chunk_ids().tolist()) == [first[0].id, second[0].id]
    assert len(live.current().segments) == 2  # the second document came as a segment of its own
    retire(class_document)
    assert live.current().chunk_ids().tolist() == [second[0].id]
    other.delete_with_file()
    assert live.current().chunk_ids().tolist() == []


def test_a_missing_or_damaged_file_is_rebuilt_from_the_database(class_document):
    chunks = add_chunks(class_document, ["Die Zelle teilt sich.", "Mitose hat vier Phasen."])
    live.current()
    path = store.index_dir() / store.MANIFEST
    path.write_bytes(b"not an index")
    live.forget()
    assert sorted(live.current().chunk_ids().tolist()) == sorted(c.id for c in chunks)
    assert store.load(store.index_dir()) is not None
    path.unlink()
    live.forget()
    assert sorted(live.current().chunk_ids().tolist()) == sorted(c.id for c in chunks)
    # The segments of the lost manifests were removed with the rebuild.
    assert len(list((store.index_dir() / "segments").iterdir())) == 1


def test_chunks_without_a_vector_or_of_unfinished_documents_are_not_indexed(class_document, tess):
    add_chunks(class_document, ["Die Zelle teilt sich."])
    Chunk.objects.update(embedding=None)
    pending = make_document(tess, "neu.txt", scope=Document.Scope.CLASS)
    add_chunks(pending, ["Noch nicht fertig."], done=False)
    assert len(live.current()) == 0


def test_switching_the_embedding_model_rebuilds_and_reembeds_in_the_background(
    class_document, settings, django_capture_on_commit_callbacks
):
    from apps.llm.tests.fake_ollama import FakeOllama

    chunks = add_chunks(class_document, ["Die Zelle teilt sich.", "Mitose hat vier Phasen."])
    assert len(live.current()) == 2
    with FakeOllama() as server:
        settings.OLLAMA_HOST = server.url
        settings.EMBEDDING_BACKEND = "ollama"
        with django_capture_on_commit_callbacks() as enqueued:
            switched = live.current()
        # The old vectors are never mixed into the new model's space.
        assert (switched.model, switched.dim, len(switched)) == ("ollama/embeddinggemma", 16, 0)
        assert len(enqueued) == 1  # the re-embedding task, by name
        assert reembed_chunks.name == reembed.REEMBED_TASK
        assert reembed_chunks() == 2
        assert reembed_chunks() == 0  # idempotent
        caught_up = live.current()
        assert sorted(caught_up.chunk_ids().tolist()) == sorted(c.id for c in chunks)
        assert caught_up.dim == 16
        assert set(Chunk.objects.values_list("embedding_model", flat=True)) == {
            "ollama/embeddinggemma"
        }


def test_the_dense_scan_finds_what_faiss_finds():
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((500, 32)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    rows = [(i + 1, i % 9, f"chunk {i}", vectors[i]) for i in range(500)]
    snapshot = Snapshot.empty(1, "test", 32).changed(1, add=rows)
    flat = snapshot.segments[0].flat
    allowed = rng.random(500) < 0.6
    for query in rng.standard_normal((5, 32)).astype(np.float32):
        query /= np.linalg.norm(query)
        _, expected = flat.search(query.reshape(1, 32), 20)
        assert snapshot.dense_ranking(query, None, 20, -1.0).tolist() == expected[0].tolist()
        selector = faiss.IDSelectorBitmap(
            500, faiss.swig_ptr(np.packbits(allowed, bitorder="little"))
        )
        _, scoped = flat.search(
            query.reshape(1, 32), 20, params=faiss.SearchParameters(sel=selector)
        )
        assert snapshot.dense_ranking(query, allowed, 20, -1.0).tolist() == scoped[0].tolist()
