"""Celery tasks of ingestion: thin carriers of pipeline steps (see pipeline.py for the rules),
and starting and resuming runs, which is queueing those tasks.

A run is a chain of `ingest_step` tasks. Steps are idempotent, so a redelivered message is
harmless; a task of a superseded attempt stops its chain. When a worker of the `celery` queue
starts, it resumes the unfinished runs from their checkpoints instead of waiting for Redis to
redeliver in an hour (apps/jobs/recovery.py).
"""

import logging

from celery import chain, shared_task
from celery.exceptions import Ignore
from django.conf import settings
from django.db import transaction

from apps.jobs.recovery import at_worker_start
from apps.vault import pipeline, selftest
from apps.vault.models import IngestRun, IngestStep
from apps.vault.search.reembed import reembed_stale
from apps.vault.steps import run_step

logger = logging.getLogger(__name__)


def start_chain(run_id: int, attempt: int, steps: tuple[str, ...] | list[str]) -> None:
    """The run's steps, then its search self-test (a failed step stops the chain before it)."""
    steps_then_test = [ingest_step.si(run_id, name, attempt) for name in steps]
    chain(*steps_then_test, vault_selftest.si(run_id)).apply_async()


@transaction.atomic
def start_run(owner, document_ids: list[int] | None = None) -> IngestRun:
    """A new run over the given documents (default: all the owner may change), queued after
    the transaction commits."""
    run = IngestRun.objects.create(owner=owner, document_ids=sorted(document_ids or []), attempt=1)
    IngestStep.objects.bulk_create(
        IngestStep(run=run, position=position, name=name)
        for position, name in enumerate(IngestRun.STEPS)
    )
    transaction.on_commit(lambda: enqueue(run.pk, run.attempt, IngestRun.STEPS[0]))
    return run


def enqueue(run_id: int, attempt: int, first_step: str) -> None:
    start_chain(run_id, attempt, IngestRun.STEPS[IngestRun.STEPS.index(first_step) :])


def resume(run_id: int) -> bool:
    """Continue a run from its first unfinished step under a new attempt number."""
    with transaction.atomic():
        run = IngestRun.objects.filter(pk=run_id).first()
        if run is None or run.finished:
            return False
        run.attempt += 1
        run.save(update_fields=["attempt"])
        step = run.steps.exclude(status=IngestStep.Status.DONE).order_by("position").first()
        first = step.name if step else IngestRun.STEPS[-1]
        attempt = run.attempt
        transaction.on_commit(lambda: enqueue(run_id, attempt, first))
    logger.info("Resuming ingestion run %s at step %s (attempt %s)", run_id, first, attempt)
    return True


@at_worker_start("celery")
def resume_unfinished_runs(worker: str) -> list[int]:
    """At worker start: runs this worker was doing (or nobody is doing) continue now; runs
    another live worker is doing are looked at again once their heartbeat could be stale."""
    cutoff = IngestRun.objects.cutoff()
    resumed = []
    for run in IngestRun.objects.unfinished():
        if run.worker in ("", worker) or run.heartbeat_at is None or run.heartbeat_at < cutoff:
            if resume(run.pk):
                resumed.append(run.pk)
        else:
            resume_if_stale.apply_async(
                (run.pk, run.attempt), countdown=settings.INGEST_STALE_SECONDS
            )
    return resumed


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def ingest_step(self, run_id: int, name: str, attempt: int) -> None:
    try:
        run_step(run_id, name, attempt, worker=self.request.hostname or "")
    except pipeline.StaleAttempt:
        raise Ignore() from None
    except pipeline.MODEL_ERRORS as error:
        retries = self.request.retries
        if retries >= settings.EMBED_MAX_RETRIES:
            pipeline.fail_run(
                run_id,
                f"The embedding model is unavailable ({error}); gave up after "
                f"{retries + 1} tries. Start the ingestion again once it is back.",
            )
            raise Ignore() from None
        countdown = settings.EMBED_RETRY_SECONDS * 2**retries
        logger.warning("Run %s: model unavailable (%s), retry in %s s", run_id, error, countdown)
        raise self.retry(exc=error, countdown=countdown) from None
    except Exception as error:
        logger.exception("Ingestion run %s failed in step %s", run_id, name)
        pipeline.fail_run(run_id, f"Ingestion stopped in the {name} step: {error}")
        raise Ignore() from None


@shared_task(acks_late=True)
def resume_if_stale(run_id: int, attempt: int) -> None:
    run = IngestRun.objects.filter(pk=run_id, attempt=attempt).first()
    if run is None or run.finished:
        return
    if run.heartbeat_at is None or run.heartbeat_at < IngestRun.objects.cutoff():
        resume(run_id)
    else:
        resume_if_stale.apply_async((run_id, attempt), countdown=settings.INGEST_STALE_SECONDS)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def vault_selftest(run_id: int) -> int | None:
    """Search's recall@7 and MRR on cloze questions from the vault, once the run is done."""
    test = selftest.run(run_id)
    return test.pk if test else None


@shared_task
def reembed_chunks() -> int:
    """Re-embed chunks made with another model after the embedding model was switched."""
    return reembed_stale()
