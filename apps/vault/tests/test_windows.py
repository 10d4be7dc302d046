"""Sentence windows: each chunk is also embedded as runs of whole sentences of about 150
characters, and the dense retriever scores a chunk by its best vector (max-sim), then hands out
the whole chunk."""

import numpy as np
import pytest

from apps.llm import gateway
from apps.vault import embedding
from apps.vault.chunking import Unit, pieces_from_units, sentences, windows
from apps.vault.models import Chunk, Document
from apps.vault.search import live, store
from apps.vault.search.query import search as search_chunks
from apps.vault.search.snapshot import Snapshot
from apps.vault.tasks import reembed_chunks
from apps.vault.tests.chunks import add_chunks, use_embedded_model
from bench.retrieval_eval import answers, questions, sources, units
from tests.helpers.documents import make_document


@pytest.fixture(autouse=True)
def _embedded(settings):
    use_embedded_model(settings)
    yield
    live.forget()


def axis(i: int, dim: int = 4) -> np.ndarray:
    vector = np.zeros(dim, np.float32)
    vector[i] = 1.0
    return vector


# --- Windows ---


def test_sentences_end_at_punctuation_or_a_blank_line_and_a_wrapped_line_is_one_sentence():
    text = "Erster Satz. Zweiter\nSatz geht weiter! Dritter?\n\nAbsatz ohne Punkt"
    assert sentences(text) == [
        "Erster Satz.",
        "Zweiter Satz geht weiter!",
        "Dritter?",
        "Absatz ohne Punkt",
    ]


def test_windows_grow_by_whole_sentences_side_by_side_and_the_rest_is_the_last():
    assert windows("One. Two. Three. Four. Five.", min_chars=8) == [
        "One. Two.",
        "Three. Four.",
        "Five.",
    ]
    long = "A sentence of exactly forty characters.."
    assert windows(" ".join([long] * 9)) == [" ".join([long] * 4)] * 2 + [long]


def test_a_colon_does_not_end_a_sentence_and_a_short_option_line_joins_its_neighbours():
    text = "What: pg(1) command\nWhy: use less(1) or more(1)\n\n-v, --version\n\nShow the version."
    assert sentences(text) == [
        "What: pg(1) command Why: use less(1) or more(1)",
        "-v, --version",
        "Show the version.",
    ]
    assert windows(text, min_chars=50) == [
        "What: pg(1) command Why: use less(1) or more(1) -v, --version",
        "Show the version.",
    ]


def test_a_chunk_that_makes_one_window_or_none_has_no_windows():
    assert windows("Only one sentence here.") == []
    assert windows("First sentence. Second sentence.") == []


def test_chunk_vectors_are_the_chunk_then_each_window():
    text = (
        "Mitochondria make ATP from the sugar a cell takes in, and the cell spends that ATP on "
        "almost everything it does. Ribosomes read messenger RNA and build proteins from amino "
        "acids, one codon after the other. Chloroplasts capture light in plants and algae."
    )
    [vectors] = embedding.chunk_vectors([text])
    assert vectors.shape == (1 + len(windows(text)), 512) == (3, 512)
    expected = gateway.embed([text, *windows(text)])
    assert np.allclose(vectors, expected, atol=1e-5)


# --- Max-sim ---


def test_a_chunk_scores_its_best_vector_so_one_answering_window_lifts_it():
    # Chunk 1's own vector points away from the question, one of its windows points at it;
    # chunk 2 is moderately close as a whole. Max-sim ranks chunk 1 first.
    question = axis(0)
    moderate = np.array([0.8, 0.6, 0, 0], np.float32)
    snapshot = Snapshot.empty(1, "test", 4).changed(
        1,
        add=[
            (1, 1, "long chunk", np.stack([axis(1), axis(2), axis(0)])),
            (2, 1, "other chunk", moderate),
        ],
    )
    assert snapshot.vector_counts().tolist() == [3, 1]
    assert snapshot.ids[snapshot.dense_ranking(question, None, 2, -1.0)].tolist() == [1, 2]


def test_removing_a_chunk_removes_all_its_vectors_and_keeps_the_others_aligned():
    snapshot = Snapshot.empty(1, "test", 4).changed(
        1,
        add=[
            (1, 1, "a", np.stack([axis(1), axis(0)])),
            (2, 1, "b", np.stack([axis(2), axis(3), axis(3)])),
            (3, 1, "c", axis(1)),
        ],
    )
    smaller = snapshot.changed(2, remove=[1])
    assert smaller.chunk_ids().tolist() == [2, 3]
    assert smaller.vector_counts().tolist() == [3, 1]
    assert np.array_equal(smaller.vectors_of(2), np.stack([axis(2), axis(3), axis(3)]))
    assert smaller.ids[smaller.dense_ranking(axis(3), None, 1, -1.0)].tolist() == [2]
    assert smaller.ids[smaller.dense_ranking(axis(0), None, 2, 0.5)].tolist() == []


def test_a_saved_snapshot_keeps_each_chunks_vectors(tmp_path):
    snapshot = Snapshot.empty(1, "test", 4, tmp_path).changed(
        1, add=[(1, 1, "a b", np.stack([axis(1), axis(0)])), (2, 1, "c", axis(2))]
    )
    store.save(snapshot, tmp_path, state=1)
    loaded, _ = store.load(tmp_path)
    assert loaded.vector_counts().tolist() == [2, 1]
    assert np.array_equal(loaded.vectors_of(1), np.stack([axis(1), axis(0)]))
    assert loaded.ids[loaded.dense_ranking(axis(0), None, 1, -1.0)].tolist() == [1]


# --- The whole chunk is what the reader gets ---


def test_a_window_match_returns_the_whole_chunk_as_context(tess, alice):
    document = make_document(tess, "notes.txt", scope=Document.Scope.CLASS)
    long_text = (
        "The library was founded in 1850 and holds old maps. Its reading room seats forty people. "
        "Photosynthesis turns light into chemical energy in the chloroplasts. "
        "The roof was repaired in 1990. Guided tours run on Sundays."
    )
    add_chunks(document, [long_text, "Trains leave every hour from platform two to the city."])
    hits = search_chunks(alice, "How do plants make energy from sunlight?", k=1)
    assert [hit.text for hit in hits] == [long_text]
    assert hits[0].dense_rank == 1


# --- Chunks embedded before windows existed ---


def test_chunks_with_one_vector_stay_searchable_and_are_re_embedded_with_windows(
    tess, django_capture_on_commit_callbacks
):
    document = make_document(tess, "alt.txt", scope=Document.Scope.CLASS)
    text = (
        "Die Zelle ist die kleinste Einheit des Lebens, und jede Zelle entsteht aus einer anderen "
        "Zelle durch Teilung. Bei der Mitose entstehen zwei Tochterzellen mit demselben Erbgut. "
        "Bei der Meiose entstehen Keimzellen mit dem halben Chromosomensatz."
    )
    assert len(windows(text)) == 2
    [chunk] = add_chunks(document, [text])
    # As an older version stored it: the chunk's own vector only.
    Chunk.objects.filter(pk=chunk.pk).update(embedding=gateway.embed([text])[0].tobytes())
    live.forget()
    with django_capture_on_commit_callbacks() as enqueued:
        snapshot = live.current()
    assert snapshot.chunk_ids().tolist() == [chunk.pk]
    assert snapshot.vector_counts().tolist() == [1]
    assert len(enqueued) == 1  # the re-embedding task, by name
    assert reembed_chunks() == 1
    assert reembed_chunks() == 0  # idempotent
    caught_up = live.current()
    assert caught_up.chunk_ids().tolist() == [chunk.pk]
    assert caught_up.vector_counts().tolist() == [1 + len(windows(text))]


# --- Quality on the evaluation's own documents, with the real embeddings ---


@pytest.mark.embedded
def test_paraphrased_and_identifier_questions_find_their_passage_in_the_top_7(tess, alice):
    """A handful of the evaluation's questions on three of its documents (as text, no OCR)."""
    chosen = {"util-linux-deprecated.en.txt", "users-and-groups.en.txt", "apt-get.de.txt"}
    for source in sources():
        if source.file in chosen:
            document = make_document(tess, source.file, scope=Document.Scope.CLASS)
            add_chunks(document, [piece.text for piece in _pieces(source)])
    asked = {q.id: q for q in questions()}
    for question_id in (
        "en-p10",
        "en-p15",
        "en-p19",
        "de-p08",
        "de-p10",
        "en-i06",
        "en-i10",
        "de-i06",
    ):
        question = asked[question_id]
        hits = search_chunks(alice, question.text, k=7)
        assert any(answers(hit.text, question) for hit in hits), question.text


def _pieces(source):
    return pieces_from_units(Unit(**unit) for unit in units(source))
