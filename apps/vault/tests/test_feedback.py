"""Pseudo-relevance feedback: the BM25 query is widened by the best words of the first fused top
chunks, so a passage that shares few of the question's words but many of its neighbours' climbs;
the two retrievers are then fused again by RRF. The added words reorder the passages that hold a
word of the question and bring in none that holds none: a keyword rank means a word of the
question is in the passage."""

import numpy as np
import pytest

from apps.vault.models import Document
from apps.vault.search import live, ranking
from apps.vault.search.query import search as search_chunks
from apps.vault.search.snapshot import Snapshot
from apps.vault.tests.chunks import add_chunks, use_embedded_model
from tests.helpers.documents import make_document

DIM = 8
FILLER = {
    cid: f"Gardening notes {cid}: tomatoes need their sun, water and patience in summer."
    for cid in range(10, 40)
}


def snapshot_of(texts: dict[int, str], documents: dict[int, int] | None = None) -> Snapshot:
    documents = documents or {}
    rng = np.random.default_rng(0)
    rows = []
    for cid, text in texts.items():
        vector = rng.normal(size=DIM).astype(np.float32)
        rows.append((cid, documents.get(cid, 1), text, vector / np.linalg.norm(vector)))
    return Snapshot.empty(1, "test-model", DIM).changed(1, add=rows)


SCHEDULER = {
    1: "Threads are scheduled fairly: the kernel keeps runqueues and hands out timeslices.",
    # Of the question's words it holds only "their", as every filler does; it is longer.
    2: "Runqueues are rebalanced across the processors at intervals; their timeslices shrink "
    "under preemption and load.",
    # None of the question's words.
    3: "Runqueues and timeslices are rebalanced across processors under preemption.",
    **FILLER,
}
QUESTION = "How do threads get their share?"


def found(snapshot: Snapshot, query: str, allowed=None, texts=SCHEDULER) -> list[int]:
    ranked = snapshot.search(query, None, allowed, k=7, texts=lambda ids: [texts[i] for i in ids])
    return [hit.chunk_id for hit in ranked]


def test_a_passage_sharing_its_neighbours_words_climbs_and_the_match_stays_first():
    snapshot = snapshot_of(SCHEDULER)
    assert found(snapshot, QUESTION)[:2] == [1, 2]


def test_without_feedback_the_passage_stays_behind_the_fillers(monkeypatch):
    monkeypatch.setattr(ranking, "FEEDBACK_WEIGHT", 0.0)
    snapshot = snapshot_of(SCHEDULER)
    assert found(snapshot, QUESTION)[0] == 1 and 2 not in found(snapshot, QUESTION)


def test_feedback_brings_in_no_passage_that_holds_no_word_of_the_question():
    assert 3 not in found(snapshot_of(SCHEDULER), QUESTION)


def test_an_identifier_keeps_its_chunk_first():
    texts = {
        1: "Fehler 404B beim Laden der Seite im Netz.",
        2: "Beim Laden der Seite im Netz tritt ein Fehler auf.",
        3: "Laden, Seite, Netz: jeder Fehler wird protokolliert.",
        **FILLER,
    }
    ranked = found(snapshot_of(texts), "404b", texts=texts)
    assert ranked == [1]  # its neighbours' words bring in no chunk without the identifier


def test_the_added_words_leave_out_the_query_identifiers_and_short_words():
    text = "Alpha beta gamma delta epsilon zeta eta theta iota kappa lambda omicron sigma my v2.1 x"
    snapshot = snapshot_of({1: text, **FILLER})
    query = "alpha beta"
    added = snapshot.feedback_terms([text], query)
    words = set(added)
    assert len(words) == ranking.FEEDBACK_TERMS == 10
    assert words.isdisjoint({"alpha", "beta", "my", "x", "v2.1", "v2", "1"})
    assert sum(added.values()) == pytest.approx(ranking.FEEDBACK_WEIGHT * 2)


def test_feedback_does_not_reach_outside_the_scope():
    snapshot = snapshot_of(SCHEDULER, documents={2: 2})
    assert 2 not in found(snapshot, QUESTION, np.array([1]))
    assert found(snapshot, QUESTION, np.array([1, 2]))[:2] == [1, 2]


@pytest.mark.django_db
def test_the_search_everyone_calls_ranks_by_keywords_only_what_holds_a_question_word(
    settings, tess, alice
):
    use_embedded_model(settings)
    document = make_document(tess, "scheduler.txt", scope=Document.Scope.CLASS)
    first, second, third = add_chunks(document, [SCHEDULER[1], SCHEDULER[2], SCHEDULER[3]])
    try:
        hits = {hit.chunk_id: hit for hit in search_chunks(alice, QUESTION)}
    finally:
        live.forget()
    assert hits[first.pk].sparse_rank == 1
    assert hits[second.pk].sparse_rank == 2
    # It shares the first chunk's words but none of the question's: found by meaning alone.
    assert hits[third.pk].sparse_rank is None and hits[third.pk].dense_rank is not None
