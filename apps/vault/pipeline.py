"""An ingestion run's records, kept by the steps (steps.py): its heartbeat, each step's progress,
how a run fails; and the changes people make to documents (delete, re-ingest), which move the
index generation with the rows like the index step does."""

from django.db import transaction
from django.utils import timezone

from apps.llm import gateway
from apps.vault.models import Document, IndexState, IngestRun, IngestStep


class StaleAttempt(Exception):
    """This task belongs to a finished run or to an attempt that a resume replaced."""


# --- Hooks to the other parts --------------------------------------------------------------


def on_chunks_changed(document_id: int) -> None:
    """Called inside every transaction that changes a document's live chunks (made live,
    retired, deleted), so the index generation moves together with the rows."""
    IndexState.bump()


# A model that is down, slow or talks garbage: worth retrying with backoff.
MODEL_ERRORS = (gateway.ModelUnavailable, gateway.ModelError)


# --- Runs (started and resumed by tasks.py) --------------------------------------------------


def fail_run(run_id: int, reason: str) -> None:
    """End a run as failed; its documents wait for the next run, which starts from the
    checkpoints this one left."""
    with transaction.atomic():
        run = IngestRun.objects.filter(pk=run_id).first()
        if run is None or run.finished:
            return
        now = timezone.now()
        run.status, run.error, run.finished_at = IngestRun.Status.FAILED, reason, now
        run.save(update_fields=["status", "error", "finished_at"])
        run.steps.filter(status=IngestStep.Status.RUNNING).update(
            status=IngestStep.Status.FAILED, detail=reason[:300], finished_at=now
        )
        run.documents.filter(status=Document.Status.PROCESSING).update(
            status=Document.Status.PENDING
        )


def touch(run: IngestRun) -> None:
    """Heartbeat; raises StaleAttempt once a resume has taken the run over."""
    if not IngestRun.objects.filter(attempt=run.attempt).beat(run.pk):
        raise StaleAttempt(f"run {run.pk} attempt {run.attempt} was superseded")


def finish_step(step: IngestStep) -> None:
    step.status, step.finished_at = IngestStep.Status.DONE, timezone.now()
    step.save(update_fields=["status", "finished_at", "done", "total", "detail"])


def report(step: IngestStep, *, done=None, total=None, detail=None) -> None:
    if done is not None:
        step.done = done
    if total is not None:
        step.total = total
    if detail is not None:
        step.detail = detail[:300]
    step.save(update_fields=["done", "total", "detail"])


def run_documents(run: IngestRun):
    return run.documents.filter(status=Document.Status.PROCESSING).order_by("pk")


# --- Changes made by people ----------------------------------------------------------------


def delete_document(document: Document) -> None:
    """The document and its chunks go in one transaction; the file once that committed."""
    path = document.path
    with transaction.atomic():
        document.chunks.all().delete()
        on_chunks_changed(document.pk)
        document.delete()
    transaction.on_commit(lambda: path.unlink(missing_ok=True))


def reset_for_reingest(document: Document) -> None:
    """Queue the document for the next run, keeping its checkpoints: they are keyed by the
    file's hash, so a file whose bytes did not change resumes at its first unfinished step (a
    done one is made live again without being read or embedded; a batch embedded with another
    model is embedded again), and a changed or never-read one is read from the start."""
    with transaction.atomic():
        was_live = document.status == Document.Status.DONE
        Document.objects.filter(pk=document.pk).update(status=Document.Status.PENDING, error="")
        if was_live:
            on_chunks_changed(document.pk)
