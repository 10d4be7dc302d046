"""Does search find what the vault holds? After an ingestion run, cloze questions made from a
fixed sample of chunks (a key term left out of one of their sentences) go through the hybrid
search exactly as chat and the study generators use it — never a model answer — and recall@7
and the mean reciprocal rank are stored per document and overall. A badly OCRed scan or a
table-only file shows up at the bottom of the list.

A teacher's run tests the class documents; a student's run tests their personal documents.
"""

import logging
import random
import time

from django.db import transaction
from django.db.models import F

from apps.llm import gateway
from apps.vault.cloze import clozes
from apps.vault.keyterms import Vocabulary
from apps.vault.models import Chunk, Document, IngestRun, SelfTest, SelfTestDocument
from apps.vault.search.models import IndexState
from apps.vault.search.query import search as search_chunks

log = logging.getLogger(__name__)

SAMPLE = 50
SEED = 15  # fixed: the same vault gives the same questions, so runs are comparable
TOP = 7  # what chat answers from
DEPTH = 20  # how far down the reciprocal rank still counts


def tested_documents(owner):
    documents = Document.objects.filter(status=Document.Status.DONE)
    if owner.is_staff:
        return documents.filter(scope=Document.Scope.CLASS)
    return documents.filter(scope=Document.Scope.PERSONAL, owner=owner)


def questions(owner) -> list[tuple[int, int, str]]:
    """(chunk id, document id, query) for a fixed sample of the tested chunks: the chunk's
    heaviest sentence with its heaviest key term left out."""
    chunks = Chunk.objects.filter(
        document__in=tested_documents(owner), document_sha256=F("document__sha256")
    )
    ids = sorted(chunks.values_list("pk", flat=True))
    sample = sorted(random.Random(SEED).sample(ids, min(SAMPLE, len(ids))))
    rows = list(chunks.filter(pk__in=sample).values_list("pk", "document_id", "text"))
    vocabulary = Vocabulary({pk: text for pk, _, text in rows})
    made = []
    for pk, document_id, text in rows:
        cloze = next(clozes(pk, text, vocabulary), None)
        if cloze is not None:
            made.append((pk, document_id, cloze.replaced(" ")))
    return made


def run(run_id: int) -> SelfTest | None:
    """Test the vault the run's owner changes, unless nothing changed since the last test.
    Idempotent: a run has at most one test, and doing it again replaces it."""
    ingest_run = IngestRun.objects.select_related("owner").filter(pk=run_id).first()
    if ingest_run is None or ingest_run.status != IngestRun.Status.DONE:
        return None
    owner = ingest_run.owner
    generation = IndexState.current()
    last = SelfTest.objects.filter(owner=owner).exclude(run=ingest_run).first()
    if last is not None and last.generation == generation:
        return None
    started = time.monotonic()
    results: dict[int, list[float]] = {}  # document id -> reciprocal ranks (0: not found)
    found_in_top: dict[int, list[bool]] = {}
    missed: dict[int, list[int]] = {}  # the chunks search did not find, to look at in the reader
    for chunk_id, document_id, query in questions(owner):
        try:
            hits = search_chunks(owner, query, k=DEPTH)
        except (gateway.ModelUnavailable, gateway.ModelError) as error:
            log.warning("Vault self-test of run %s stopped: %s", run_id, error)
            return None
        ranked = [hit.chunk_id for hit in hits]
        rank = ranked.index(chunk_id) + 1 if chunk_id in ranked else None
        results.setdefault(document_id, []).append(1 / rank if rank else 0.0)
        found_in_top.setdefault(document_id, []).append(rank is not None and rank <= TOP)
        if not found_in_top[document_id][-1]:
            missed.setdefault(document_id, []).append(chunk_id)
    with transaction.atomic():
        # A document deleted while its questions went through the search has no figures, and
        # one still here cannot go before this commits.
        kept = Document.objects.select_for_update().filter(pk__in=results)
        results = {pk: results[pk] for pk in kept.values_list("pk", flat=True)}
        everything = [r for ranks in results.values() for r in ranks]
        tops = [t for pk in results for t in found_in_top[pk]]
        SelfTest.objects.filter(run=ingest_run).delete()
        selftest = SelfTest.objects.create(
            owner=owner,
            run=ingest_run,
            generation=generation,
            questions=len(everything),
            recall_at_7=_mean(tops),
            mrr=_mean(everything),
            seconds=round(time.monotonic() - started, 2),
        )
        SelfTestDocument.objects.bulk_create(
            SelfTestDocument(
                selftest=selftest,
                document_id=document_id,
                questions=len(ranks),
                recall_at_7=_mean(found_in_top[document_id]),
                mrr=_mean(ranks),
                missed=missed.get(document_id, []),
            )
            for document_id, ranks in results.items()
        )
    return selftest


def _mean(values) -> float:
    values = list(values)
    return round(sum(values) / len(values), 4) if values else 0.0


def latest_by_document(user) -> list[SelfTestDocument]:
    """The newest figures of each document the user may see, worst first."""
    visible = Document.objects.visible_to(user)
    rows = (
        SelfTestDocument.objects.filter(
            document__in=visible, selftest__in=SelfTest.objects.visible_to(user)
        )
        .select_related("document", "selftest")
        .order_by("document_id", "-selftest__created_at", "-selftest_id")
    )
    newest: dict[int, SelfTestDocument] = {}
    for row in rows:
        newest.setdefault(row.document_id, row)
    return sorted(newest.values(), key=lambda r: (r.recall_at_7, r.mrr, r.document.filename))


def trend(user, runs: int = 10) -> list[SelfTest]:
    """The last self-tests the user may see, oldest first."""
    return list(reversed(SelfTest.objects.visible_to(user)[:runs]))
