"""Exact words of a scan find their passage: a word that occurs in one document only (here a
page read back by OCR, beside manuals in German and English) ranks that document's passage
first, and a hit is ranked by keywords only when it holds a word of the query. Real embedded
encoder, real OCR; the fusion's rule on its own below."""

from pathlib import Path

import numpy as np
import pytest

from apps.vault.search import live, ranking
from apps.vault.search.query import search
from apps.vault.search.snapshot import Snapshot
from apps.vault.tests.files import scanned_page_pdf
from apps.vault.tests.helpers import closed_port_url, ingest, upload
from apps.vault.tokenize import query_terms, tokenize
from bench.retrieval_eval import DOCUMENTS

FAQ = Path(__file__).resolve().parents[3] / "tests" / "offline_answers"
SCANNED = (
    "Das Debian-Projekt wurde 1993 von Ian Murdock gegründet, anfangs unter der "
    "Schirmherrschaft des GNU-Projekts der Free Software Foundation. Folgende "
    "Schlüsselmerkmale unterscheiden Debian von anderen Linux-Distributionen."
)


def snapshot_of(texts: dict[int, tuple[int, str]]) -> Snapshot:
    """Chunks (id: (document, text)) with one vector each, the first chunk's nearest the query."""
    rows = [
        (cid, document, text, np.eye(4, dtype=np.float32)[min(i, 3)])
        for i, (cid, (document, text)) in enumerate(texts.items())
    ]
    return Snapshot.empty(1, "test-model", 4).changed(1, add=rows)


def test_the_keyword_rank_of_a_chunk_holding_a_word_of_one_document_weighs_more():
    assert [r.chunk_id for r in ranking.fuse([5], [7], 2)] == [5, 7]  # a tie, by chunk id
    assert [r.chunk_id for r in ranking.fuse([5], [7], 2, rare={7})] == [7, 5]


def test_a_rare_word_ranks_its_chunk_above_the_nearest_in_meaning():
    texts = {
        1: (1, "Free software and the GNU project share one idea of freedom."),
        2: (1, "The project's archives are updated twice a day by its volunteers."),
        3: (2, "The project was founded in 1993 by Ian Murdock."),
    }
    snapshot = snapshot_of(texts)
    ranked = snapshot.search(
        "Murdock",
        np.eye(4, dtype=np.float32)[0],  # nearest chunk 1, and only chunk 1 above 0.5
        None,
        3,
        min_score=0.5,
        texts=lambda ids: [texts[cid][1] for cid in ids],
    )
    assert [r.chunk_id for r in ranked] == [3, 1]  # the feedback's words bring in no chunk 2
    assert ranked[1].sparse_rank is None  # found by meaning, not by the word


def test_a_word_is_rare_in_one_document_and_a_few_chunks_only():
    texts = {
        **{cid: (1, f"Part {cid} of the bzip2 manual.") for cid in range(1, 6)},
        6: (2, "Ian Murdock founded the project; Murdock named it."),
        7: (3, "The project's founder, Murdock, and Debra."),
        8: (3, "Debra and Ian."),
    }
    snapshot = snapshot_of(texts)
    rare = lambda query: sorted(snapshot.ids[snapshot.rare_rows(query)].tolist())  # noqa: E731
    assert rare("Debra") == [7, 8]
    assert rare("Murdock") == []  # in two documents
    assert len(texts) - 3 > ranking.RARE_CHUNKS and rare("bzip2") == []  # in five chunks


@pytest.fixture
def vault(alice, settings, tmp_path, django_capture_on_commit_callbacks):
    settings.LLM_BACKEND = settings.EMBEDDING_BACKEND = "embedded"
    settings.OLLAMA_HOST = closed_port_url()
    live.forget()
    upload(alice, scanned_page_pdf(tmp_path / "debian-scan.pdf", 0, SCANNED))
    for path in (
        FAQ / "debian-faq-8.de.txt",
        DOCUMENTS / "passwd-chage.de.txt",
        DOCUMENTS / "util-linux-deprecated.en.txt",
    ):
        (tmp_path / path.name).write_bytes(path.read_bytes())
        upload(alice, tmp_path / path.name)
    run = ingest(alice, django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    assert run.status == "done"
    yield alice
    live.forget()


@pytest.mark.embedded
@pytest.mark.django_db
@pytest.mark.timeout(600)  # OCR and the real encoder on a busy 2-core machine
@pytest.mark.parametrize("word", ["Murdock", "Schlüsselmerkmale"])
def test_a_word_of_one_scanned_document_ranks_its_passage_first(vault, word):
    hits = search(vault, word)

    assert len(hits) > 1  # the others are found by meaning, not by the word
    for hit in hits:
        holds_word = bool(set(query_terms(word)) & set(tokenize(hit.text)))
        assert (hit.sparse_rank is not None) == holds_word, (hit.filename, hit.sparse_rank)
    assert hits[0].filename == "debian-scan.pdf"
    assert word.casefold() in hits[0].text.casefold()
