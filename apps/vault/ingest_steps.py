"""The steps of an ingestion run: scan+hash, extract, chunk, embed, index (STEPS, in order).

Each step is idempotent and checkpoints its results in the database, keyed by the document's
hash (Extraction rows, Document.chunked_sha256, one transaction per embedded batch of 5,
Document.indexed_sha256), so a run killed at any point resumes at its first unfinished step and
repeats no finished work. The index step makes new chunks live and retires old ones in one
transaction. Starting, resuming and running a run's steps is ingestion.py.
"""

import hashlib
import time
from collections import Counter
from collections.abc import Callable

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.template.defaultfilters import pluralize
from django.utils import timezone

from apps.llm import gateway
from apps.vault.chunking import Unit, pieces_from_units
from apps.vault.embedding import chunk_vectors
from apps.vault.models import Chunk, Document, Extraction, IngestRun, IngestStep
from apps.vault.readers import ExtractionError, run_isolated
from apps.vault.search.live import catch_up
from apps.vault.search.models import IndexState

BATCH_SIZE = 5
PROGRESS_EVERY_SECONDS = 0.5


def scan(run: IngestRun, step: IngestStep) -> None:
    """Hash every candidate file: new and changed ones join the run, unchanged ones are
    skipped, and a changed one leaves the live set now (its old chunks stop being served)."""
    candidates = Document.objects.editable_by(run.owner).order_by("pk")
    if run.document_ids:
        candidates = candidates.filter(pk__in=run.document_ids)
    busy = set(
        Document.objects.filter(ingest_runs__in=IngestRun.objects.unfinished())
        .exclude(ingest_runs=run)
        .values_list("pk", flat=True)
    )
    already = set(run.documents.values_list("pk", flat=True))
    counts: Counter[str] = Counter()
    candidates = list(candidates)
    for index, document in enumerate(candidates, 1):
        counts[scan_document(run, document, busy, already)] += 1
        summary = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))
        step.report(done=index, total=len(candidates), detail=summary)
    if not candidates:
        step.report(detail="no documents to scan")


def scan_document(run: IngestRun, document: Document, busy: set, already: set) -> str:
    if document.pk in already:
        return what_changed(document, document.sha256)
    if document.pk in busy:
        return "in another run"
    if document.status == Document.Status.FAILED:
        return "failed before (re-ingest to retry)"
    try:
        with open(document.path, "rb") as handle:
            digest = hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError:
        Document.objects.filter(pk=document.pk).update(
            status=Document.Status.FAILED, error="The stored file is missing."
        )
        return "missing"
    with transaction.atomic():
        if document.status == Document.Status.DONE and document.indexed_sha256 == digest:
            return "unchanged"
        was_live = document.status == Document.Status.DONE
        Document.objects.filter(pk=document.pk).update(
            sha256=digest, status=Document.Status.PROCESSING, error=""
        )
        run.documents.add(document)
        if was_live:
            IndexState.bump(document.pk)
    return what_changed(document, digest)


def what_changed(document: Document, digest: str) -> str:
    """What the scan says of a document it queues: never read, its bytes changed since it was
    read, or the same bytes asked for again (a re-ingest, which resumes from its checkpoints)."""
    if not document.indexed_sha256:
        return "new"
    return "changed" if digest != document.indexed_sha256 else "unchanged (re-ingested)"


def extract(run: IngestRun, step: IngestStep) -> None:
    documents = list(run.processing())
    step.report(total=len(documents))
    for index, document in enumerate(documents):
        done = document.chunked_sha256 == document.sha256 or (
            Extraction.objects.filter(document=document, sha256=document.sha256).exists()
        )
        if not done:
            extract_document(run, step, document, f"{index + 1} of {len(documents)}")
        step.report(done=index + 1)
    step.report(detail=extract_summary(run, len(documents)))


def extract_summary(run: IngestRun, total: int) -> str:
    failed = run.documents.filter(status=Document.Status.FAILED).count()
    parts = [f"{total - failed} of {total} files read"]
    ocr = Extraction.objects.filter(document__in=run.documents.all(), ocr_pages__gt=0)
    pages = sum(row.ocr_pages for row in ocr)
    if pages:
        seconds = sum(row.ocr_seconds for row in ocr)
        parts.append(f"{pages} OCR page{'s' if pages != 1 else ''} in {seconds:.1f} s")
    if failed:
        parts.append(f"{failed} failed")
    return " · ".join(parts)


def extract_document(run: IngestRun, step: IngestStep, document: Document, place: str) -> None:
    last = 0.0

    def on_progress(event: dict) -> None:
        nonlocal last
        if time.monotonic() - last < PROGRESS_EVERY_SECONDS:
            return
        last = time.monotonic()
        step.report(detail=describe_progress(document.filename, place, event))
        run.touch()

    step.report(detail=f"{document.filename} ({place})")
    try:
        result = run_isolated(
            document.path,
            document.format,
            timeout=settings.EXTRACT_TIMEOUT_SECONDS,
            memory_mb=settings.EXTRACT_MEMORY_MB,
            on_progress=on_progress,
            name=document.filename,
        )
    except ExtractionError as error:
        fail_document(document, str(error))
        return
    except OSError as error:
        fail_document(document, f"The file could not be opened ({error.strerror}).")
        return
    with transaction.atomic():
        run.touch()
        Extraction.objects.filter(document=document).exclude(sha256=document.sha256).delete()
        Extraction.objects.update_or_create(
            document=document,
            sha256=document.sha256,
            defaults={
                "units": result["units"],
                "pages": result.get("pages"),
                "ocr_pages": result.get("ocr_pages", 0),
                "ocr_seconds": result.get("ocr_seconds", 0.0),
            },
        )
        Document.objects.filter(pk=document.pk).update(
            pages=result.get("pages"), ocr_pages=result.get("ocr_pages", 0)
        )
        if result.get("ocr_pages"):
            step.report(
                detail=f"{document.filename}: {result['ocr_pages']} OCR pages in "
                f"{result['ocr_seconds']:.1f} s",
            )


def describe_progress(filename: str, place: str, event: dict) -> str:
    parts = [f"{filename} ({place})"]
    if "pages" in event:
        parts.append(f"page {event['page']} of {event['pages']}")
    if event.get("ocr_pages"):
        parts.append(f"OCR {event['ocr_pages']} pages, {event['ocr_seconds']:.1f} s")
    return " · ".join(parts)


def fail_document(document: Document, reason: str) -> None:
    Document.objects.filter(pk=document.pk).update(status=Document.Status.FAILED, error=reason)


def chunk(run: IngestRun, step: IngestStep) -> None:
    documents = list(run.processing())
    step.report(total=len(documents))
    for index, document in enumerate(documents, 1):
        if document.chunked_sha256 != document.sha256:
            chunk_document(run, step, document)
        step.report(done=index)


def chunk_document(run: IngestRun, step: IngestStep, document: Document) -> None:
    extraction = Extraction.objects.filter(document=document, sha256=document.sha256).first()
    if extraction is None:
        fail_document(document, "The extracted text was lost; re-ingest the document.")
        return
    pieces = list(pieces_from_units(Unit(**unit) for unit in extraction.units))
    if not pieces:
        fail_document(document, "No text was found in this file.")
        return
    with transaction.atomic():
        run.touch()
        # Left over from a forced re-ingest of the same version; never live (not "done").
        document.chunks.filter(document_sha256=document.sha256).delete()
        Chunk.objects.bulk_create(
            (
                Chunk(
                    document=document,
                    document_sha256=document.sha256,
                    ordinal=ordinal,
                    text=piece.text,
                    page=piece.page,
                    section=piece.section[:500],
                )
                for ordinal, piece in enumerate(pieces)
            ),
            batch_size=500,
        )
        Document.objects.filter(pk=document.pk).update(chunked_sha256=document.sha256)
        step.report(detail=f"{document.filename}: {len(pieces)} chunks")


def embed(run: IngestRun, step: IngestStep) -> None:
    """Batches of 5 chunks per document, each saved in its own transaction: a finished batch
    is never sent to the model again."""
    model = gateway.embedding_model()
    batches: list[list[int]] = []
    finished = 0
    for document in run.processing().filter(chunked_sha256=F("sha256")):
        rows = list(
            document.chunks.filter(document_sha256=document.sha256)
            .order_by("ordinal")
            .values_list("pk", "embedding_model", "embedding")
        )
        for start in range(0, len(rows), BATCH_SIZE):
            batch = rows[start : start + BATCH_SIZE]
            if all(vector is not None and name == model.name for _, name, vector in batch):
                finished += 1
                batches.append([])
            else:
                batches.append([pk for pk, _, _ in batch])
    step.report(done=finished, total=len(batches), detail=f"{len(batches)} batches")
    for number, ids in enumerate(batches, 1):
        if not ids:
            continue
        run.touch()
        step.report(detail=f"batch {number} of {len(batches)}")
        chunks = list(Chunk.objects.filter(pk__in=ids).order_by("ordinal"))
        vectors = chunk_vectors([chunk.text for chunk in chunks])
        with transaction.atomic():
            run.touch()
            for chunk, vector in zip(chunks, vectors, strict=True):
                Chunk.objects.filter(pk=chunk.pk).update(
                    embedding=vector.tobytes(), embedding_model=model.name
                )
            finished += 1
            step.report(done=finished)
    step.report(detail=f"{len(batches)} batch{pluralize(len(batches), 'es')} with {model.name}")


def index(run: IngestRun, step: IngestStep) -> None:
    """Each document's new chunks become live and its old ones go, the index generation moves:
    in one transaction with the run's end (as the last step, ingestion.run_step)."""
    run.touch()
    live = 0
    for document in run.processing():
        current = document.chunks.filter(document_sha256=document.sha256)
        if (
            document.chunked_sha256 != document.sha256
            or current.filter(embedding__isnull=True).exists()
        ):
            # Replaced while the run was going: the next run takes it.
            Document.objects.filter(pk=document.pk).update(status=Document.Status.PENDING)
            continue
        document.chunks.exclude(document_sha256=document.sha256).delete()
        document.extractions.all().delete()
        Document.objects.filter(pk=document.pk).update(
            status=Document.Status.DONE,
            indexed_sha256=document.sha256,
            ingested_at=timezone.now(),
            chunk_count=current.count(),
            error="",
        )
        IndexState.bump(document.pk)
        live += 1
    # The worker writes the new chunks' segment as soon as they are live, not the first search.
    transaction.on_commit(catch_up)
    step.report(done=live, total=live, detail=f"{live} document{pluralize(live)} searchable")


STEPS: dict[str, Callable[[IngestRun, IngestStep], None]] = {
    "scan": scan,
    "extract": extract,
    "chunk": chunk,
    "embed": embed,
    "index": index,  # the last: its work and the run's end are one transaction
}
