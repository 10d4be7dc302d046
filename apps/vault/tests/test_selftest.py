"""The vault's search self-test: cloze questions from its own chunks through hybrid search,
recall@7 and MRR per document and overall, shown only to who may see the documents."""

import pytest
from django.db import connection

from apps.vault import ingestion, selftest, tasks
from apps.vault.models import Document, SelfTest
from apps.vault.tests import files
from apps.vault.tests.helpers import upload

pytestmark = pytest.mark.django_db


def ingest_and_test(owner, run_ingestion):
    run = run_ingestion(owner)
    assert run.status == "done"
    tasks.vault_selftest.apply(args=(run.pk,))
    return run


def test_a_run_stores_recall_and_mrr_per_document_and_overall(tess, model, run_ingestion, tmp_path):
    upload(tess, files.markdown_file(tmp_path / "genetics.md"), scope="class")
    upload(tess, files.html_file(tmp_path / "enzymes.html"), scope="class")
    run = ingest_and_test(tess, run_ingestion)
    test = SelfTest.objects.get(run=run)
    assert test.questions >= 4
    assert 0.0 <= test.mrr <= test.recall_at_7 <= 1.0
    # Keyword search alone finds a sentence of the chunk it was cut from.
    assert test.recall_at_7 >= 0.75
    assert {row.document.filename for row in test.documents.all()} == {
        "genetics.md",
        "enzymes.html",
    }
    assert sum(row.questions for row in test.documents.all()) == test.questions


def test_a_document_deleted_while_its_questions_are_searched_gets_no_figures(
    tess, model, run_ingestion, tmp_path, monkeypatch
):
    upload(tess, files.markdown_file(tmp_path / "genetics.md"), scope="class")
    upload(tess, files.html_file(tmp_path / "enzymes.html"), scope="class")
    run = run_ingestion(tess)
    gone = Document.objects.get(filename="enzymes.html")
    search = selftest.search_chunks

    def deleted_meanwhile(*args, **kwargs):
        if Document.objects.filter(pk=gone.pk).exists():
            gone.delete_with_file()
        return search(*args, **kwargs)

    monkeypatch.setattr(selftest, "search_chunks", deleted_meanwhile)
    test = selftest.run(run.pk)

    connection.check_constraints()  # no row names a document that is gone
    assert [row.document.filename for row in test.documents.all()] == ["genetics.md"]
    assert test.questions == test.documents.get().questions


def test_it_asks_the_search_never_the_model(tess, model, run_ingestion, tmp_path):
    upload(tess, files.markdown_file(tmp_path / "genetics.md"), scope="class")
    ingest_and_test(tess, run_ingestion)
    assert not [path for path, _ in model.requests if path == "/api/chat"]


def test_running_it_again_or_after_a_run_that_changed_nothing_adds_no_row(
    tess, model, run_ingestion, tmp_path
):
    upload(tess, files.markdown_file(tmp_path / "genetics.md"), scope="class")
    run = ingest_and_test(tess, run_ingestion)
    tasks.vault_selftest.apply(args=(run.pk,))
    ingest_and_test(tess, run_ingestion)
    assert SelfTest.objects.count() == 1


def test_the_same_vault_gets_the_same_questions(tess, model, run_ingestion, tmp_path):
    upload(tess, files.markdown_file(tmp_path / "genetics.md"), scope="class")
    run_ingestion(tess)
    assert selftest.questions(tess) == selftest.questions(tess)


class Recorded:
    chains: list = []

    def __init__(self, *signatures) -> None:
        self.chains.append(signatures)

    def apply_async(self) -> None:
        pass


def test_the_chain_ends_with_the_self_test(monkeypatch):
    monkeypatch.setattr(ingestion, "chain", Recorded)
    ingestion.enqueue(7, 1, "embed")
    names = [signature.task for signature in Recorded.chains[-1]]
    assert names == [tasks.ingest_step.name] * 2 + [tasks.vault_selftest.name]


def test_students_see_only_their_own_documents_figures(
    alice, bob, tess, alice_client, bob_client, tess_client, model, run_ingestion, tmp_path
):
    upload(alice, files.markdown_file(tmp_path / "alice-notes.md"))
    ingest_and_test(alice, run_ingestion)
    upload(tess, files.html_file(tmp_path / "enzymes.html"), scope="class")
    ingest_and_test(tess, run_ingestion)

    mine = alice_client.get("/api/v1/vault/selftest").json()
    assert [row["filename"] for row in mine["documents"]] == ["alice-notes.md"]
    assert len(mine["runs"]) == 1

    theirs = bob_client.get("/api/v1/vault/selftest").json()
    assert theirs == {"runs": [], "documents": []}

    teacher = tess_client.get("/api/v1/vault/selftest").json()
    assert [row["filename"] for row in teacher["documents"]] == ["enzymes.html"]
    assert "alice-notes.md" not in tess_client.get("/vault/").content.decode()


def test_the_knowledge_base_shows_the_worst_documents_first(
    tess, tess_client, model, run_ingestion, tmp_path
):
    upload(tess, files.markdown_file(tmp_path / "genetics.md"), scope="class")
    upload(tess, files.html_file(tmp_path / "enzymes.html"), scope="class")
    ingest_and_test(tess, run_ingestion)
    page = tess_client.get("/vault/").content.decode()
    assert 'id="search-check"' in page and "recall@7" in page
    rows = selftest.latest_by_document(tess)
    assert [r.recall_at_7 for r in rows] == sorted(r.recall_at_7 for r in rows)


def test_api_needs_a_login(client):
    assert client.get("/api/v1/vault/selftest").status_code == 401


def test_the_passages_search_missed_open_in_the_reader(
    tess, tess_client, model, run_ingestion, tmp_path, monkeypatch
):
    upload(tess, files.markdown_file(tmp_path / "genetics.md"), scope="class")
    run = run_ingestion(tess)
    monkeypatch.setattr(selftest, "search_chunks", lambda *args, **kwargs: [])  # finds nothing

    test = selftest.run(run.pk)

    asked = [chunk_id for chunk_id, _, _ in selftest.questions(tess)]
    assert test.documents.get().missed == asked
    page = tess_client.get("/vault/").content.decode()
    assert f'<a href="/vault/passages/{asked[0]}/">passage 1</a>' in page
    opened = tess_client.get(f"/vault/passages/{asked[0]}/")
    assert opened.url.startswith(f"/vault/documents/{test.documents.get().document_id}/?")
