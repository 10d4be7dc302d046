"""Ingestion end to end in this process: steps through the real Celery task, the model
gateway's real Ollama backend against a fake Ollama on loopback, real files and SQLite."""

import numpy as np
import pytest

from apps.llm import gateway
from apps.vault import ingest_steps, ingestion, tasks
from apps.vault.chunking import windows
from apps.vault.models import Chunk, Document, IngestRun, StaleAttempt
from apps.vault.search.models import IndexState
from apps.vault.tests import files
from apps.vault.tests.helpers import closed_port_url, upload

pytestmark = pytest.mark.django_db


def test_a_new_document_becomes_live_with_vectors_and_places(alice, model, run_ingestion, tmp_path):
    document = upload(alice, files.pptx_file(tmp_path / "krebs.pptx", slides=3))
    run = run_ingestion(alice)
    document.refresh_from_db()
    assert run.status == "done"
    assert [step.status for step in run.steps.all()] == ["done"] * 5
    assert document.status == "done" and document.indexed_sha256 == document.sha256
    assert document.chunk_count == 3 and document.pages == 3
    live = Chunk.objects.live().filter(document=document)
    assert [chunk.page for chunk in live] == [1, 2, 3]
    # The chunk's own vector, then one per sentence window (max-sim in the index).
    vectors = np.frombuffer(live[0].embedding, dtype=np.float32).reshape(-1, 16)
    assert len(vectors) == 1 + len(windows(live[0].text))
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert live[0].embedding_model == "ollama/embeddinggemma"


def test_embedding_goes_in_batches_of_five(alice, model, run_ingestion, tmp_path):
    upload(alice, files.csv_file(tmp_path / "arten.csv", rows=20 * 12))  # 12 chunks
    run = run_ingestion(alice)
    sizes = [
        len(body["input"])
        for path, body in model.requests
        if path == "/api/embed" and body["input"] != ["dimension probe"]
    ]
    assert sizes == [5, 5, 2]
    embed = run.steps.get(name="embed")
    assert (embed.done, embed.total) == (3, 3)


def test_running_ingestion_twice_does_nothing_the_second_time(
    alice, model, run_ingestion, tmp_path
):
    upload(alice, files.markdown_file(tmp_path / "notes.md"))
    run_ingestion(alice)
    chunk_ids = list(Chunk.objects.values_list("pk", flat=True))
    generation = IndexState.current()
    asked = len(model.embedded_texts())

    second = run_ingestion(alice)

    assert second.status == "done"
    assert "1 unchanged" in second.steps.get(name="scan").detail
    assert list(Chunk.objects.values_list("pk", flat=True)) == chunk_ids
    assert len(model.embedded_texts()) == asked
    assert IndexState.current() == generation


def test_a_changed_file_replaces_its_chunks_at_once(alice, model, run_ingestion, tmp_path):
    path = tmp_path / "notes.md"
    path.write_text("# Old\n\nThe old version talks about photosynthesis in detail here.")
    document = upload(alice, path)
    run_ingestion(alice)
    old_sha = Document.objects.get().sha256

    path.write_text("# New\n\nThe new version talks about cellular respiration instead.")
    assert upload(alice, path).pk == document.pk  # same filename, same scope: same document
    assert not Chunk.objects.live().exists()  # the old version is retired from both retrievers
    run = run_ingestion(alice)

    document.refresh_from_db()
    assert "1 changed" in run.steps.get(name="scan").detail
    assert document.sha256 != old_sha
    texts = [chunk.text for chunk in Chunk.objects.filter(document=document)]
    assert texts == ["[Section: New]\nThe new version talks about cellular respiration instead."]


def test_every_change_of_the_live_set_moves_the_generation(alice, model, run_ingestion, tmp_path):
    document = upload(alice, files.markdown_file(tmp_path / "notes.md"))
    start = IndexState.current()
    run_ingestion(alice)
    after_ingest = IndexState.current()
    document.delete_with_file()
    assert start < after_ingest < IndexState.current()


def test_deleting_removes_the_document_its_chunks_and_its_file(
    alice, model, run_ingestion, tmp_path, django_capture_on_commit_callbacks
):
    document = upload(alice, files.markdown_file(tmp_path / "notes.md"))
    run_ingestion(alice)
    stored = document.path
    assert stored.exists() and Chunk.objects.filter(document=document).exists()
    with django_capture_on_commit_callbacks(execute=True):
        document.delete_with_file()
    assert not Chunk.objects.exists() and not Document.objects.exists()
    assert not stored.exists()


def test_a_broken_file_fails_alone_with_its_reason(alice, model, run_ingestion, tmp_path):
    good = upload(alice, files.markdown_file(tmp_path / "notes.md"))
    bad = upload(alice, files.encrypted_pdf(tmp_path / "locked.pdf"))
    run = run_ingestion(alice)
    good.refresh_from_db()
    bad.refresh_from_db()
    assert run.status == "done"
    assert good.status == "done"
    assert bad.status == "failed" and "password" in bad.error


def test_a_note_of_one_sentence_is_kept_whole_and_found(alice, model, run_ingestion, tmp_path):
    note = tmp_path / "reminder.txt"
    note.write_text("Bring the lab coat on Monday.\n")
    document = upload(alice, note)

    run_ingestion(alice)

    document.refresh_from_db()
    assert (document.status, document.chunk_count) == ("done", 1)
    assert Chunk.objects.live().get(document=document).text == "Bring the lab coat on Monday."


def test_a_file_of_white_space_fails_as_holding_no_text(alice, model, run_ingestion, tmp_path):
    blank = tmp_path / "blank.txt"
    blank.write_text(" \n\n \t\n")
    document = upload(alice, blank)

    run_ingestion(alice)

    document.refresh_from_db()
    assert (document.status, document.error) == ("failed", "No text was found in this file.")


def test_reingesting_an_unchanged_file_resumes_from_its_checkpoints(
    alice, model, run_ingestion, tmp_path, monkeypatch
):
    document = upload(alice, files.markdown_file(tmp_path / "notes.md"))
    run_ingestion(alice)
    before = list(Chunk.objects.values_list("pk", "embedding"))
    asked = len(model.embedded_texts())
    reads = []
    monkeypatch.setattr(ingest_steps, "run_isolated", lambda *args, **kwargs: reads.append(args))

    document.reset_for_reingest()
    run = run_ingestion(alice, [document.pk])

    document.refresh_from_db()
    assert run.status == "done" and document.status == "done"
    assert run.steps.get(name="scan").detail == "1 unchanged (re-ingested)"
    assert reads == [] and len(model.embedded_texts()) == asked  # not read, not embedded
    assert list(Chunk.objects.values_list("pk", "embedding")) == before
    assert Chunk.objects.live().filter(document=document).count() == len(before)


def test_reingesting_a_file_that_failed_to_be_read_reads_it_again(
    alice, model, run_ingestion, tmp_path, monkeypatch
):
    real_read = ingest_steps.run_isolated
    document = upload(alice, files.markdown_file(tmp_path / "notes.md"))

    def refused(*args, **kwargs):
        raise ingest_steps.ExtractionError("The reader timed out.")

    monkeypatch.setattr(ingest_steps, "run_isolated", refused)
    run_ingestion(alice)
    document.refresh_from_db()
    assert document.status == "failed"

    monkeypatch.setattr(ingest_steps, "run_isolated", real_read)
    document.reset_for_reingest()
    run_ingestion(alice, [document.pk])

    document.refresh_from_db()
    assert document.status == "done" and document.chunk_count > 0


def test_a_model_that_stays_down_fails_the_run_and_a_later_run_continues(
    alice, model, run_ingestion, settings, tmp_path, monkeypatch
):
    real_read = ingest_steps.run_isolated
    upload(alice, files.csv_file(tmp_path / "arten.csv", rows=20 * 12))
    up = settings.OLLAMA_HOST
    settings.OLLAMA_HOST = closed_port_url()

    failed = run_ingestion(alice)

    assert failed.status == "failed"
    assert "embedding model is unavailable" in failed.error
    assert "not reachable" in failed.error
    assert failed.steps.get(name="embed").status == "failed"
    assert Document.objects.get().status == "pending"
    assert model.embedded_texts() == []

    settings.OLLAMA_HOST = up
    reads = []
    monkeypatch.setattr(
        ingest_steps,
        "run_isolated",
        lambda *args, **kwargs: reads.append(args) or real_read(*args, **kwargs),
    )
    later = run_ingestion(alice)

    assert later.status == "done"
    assert reads == []  # the file was not read again: the extraction was checkpointed
    assert len(model.embedded_texts()) == 12
    assert Chunk.objects.live().count() == 12


def test_finished_batches_are_never_embedded_again(alice, model, run_ingestion, settings, tmp_path):
    """The model goes away after two batches; the next run sends only the rest."""
    upload(alice, files.csv_file(tmp_path / "arten.csv", rows=20 * 12))
    real_embed = gateway.embed
    calls = []

    def flaky(texts):
        calls.append(texts)
        if len(calls) > 2:
            settings.OLLAMA_HOST = closed_port_url()
        return real_embed(texts)

    gateway.embed, up = flaky, settings.OLLAMA_HOST
    try:
        assert run_ingestion(alice).status == "failed"
    finally:
        gateway.embed = real_embed
    settings.OLLAMA_HOST = up
    first = model.embedded_texts()
    assert len(first) == 10

    run_ingestion(alice)

    again = model.embedded_texts()[len(first) :]
    assert len(again) == 2 and not set(again) & set(first)


def test_a_stale_attempt_stops_without_touching_the_run(alice, model, run_ingestion, tmp_path):
    upload(alice, files.markdown_file(tmp_path / "notes.md"))
    run = run_ingestion(alice)
    with pytest.raises(StaleAttempt):
        ingestion.run_step(run.pk, "scan", run.attempt - 1)
    assert IngestRun.objects.get(pk=run.pk).status == "done"


def test_a_worker_start_resumes_its_unfinished_run(
    alice, model, tmp_path, monkeypatch, django_capture_on_commit_callbacks
):
    upload(alice, files.markdown_file(tmp_path / "notes.md"))
    with django_capture_on_commit_callbacks(execute=False):
        run = ingestion.start_run(alice)
    ingestion.run_step(run.pk, "scan", run.attempt, worker="w1@host")
    ingestion.run_step(run.pk, "extract", run.attempt, worker="w1@host")
    # w1 dies here with `kill -9`; when it starts again it takes the run over at "chunk".
    enqueued = []
    monkeypatch.setattr(ingestion, "enqueue", lambda *args: enqueued.append(args))
    with django_capture_on_commit_callbacks(execute=True):
        resumed = tasks.resume_unfinished_runs("w1@host")
    assert resumed == [run.pk]
    assert enqueued == [(run.pk, run.attempt + 1, "chunk")]
