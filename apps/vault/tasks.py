"""Celery tasks of the vault, thin carriers of ingestion.py: a step of a run (with retries while
the embedding model is away), the search check after a run, resuming the runs a worker left when
a worker starts, re-embedding after a model switch, merging the index's segments; and the
reader's pages, drawn by reading/renderings.py. ingestion.py, merging.py and renderings.py queue
these by their task names, so the names stay as they are.
"""

import logging

from celery import shared_task
from celery.exceptions import Ignore
from django.conf import settings

from apps.jobs.recovery import at_worker_start, requeue
from apps.llm import gateway
from apps.vault import ingestion, selftest
from apps.vault.models import Rendering, StaleAttempt
from apps.vault.reading import renderings
from apps.vault.search.merging import merge
from apps.vault.search.reembed import reembed_stale

logger = logging.getLogger(__name__)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def ingest_step(self, run_id: int, name: str, attempt: int) -> None:
    try:
        ingestion.run_step(run_id, name, attempt, worker=self.request.hostname or "")
    except StaleAttempt:
        raise Ignore() from None
    # A model that is down, slow or talks garbage: worth retrying with backoff.
    except (gateway.ModelUnavailable, gateway.ModelError) as error:
        retries = self.request.retries
        if retries >= settings.EMBED_MAX_RETRIES:
            ingestion.fail_run(
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
        ingestion.fail_run(run_id, f"Ingestion stopped in the {name} step: {error}")
        raise Ignore() from None


@at_worker_start(ingest_step)
def resume_unfinished_runs(worker: str) -> list[int]:
    """Runs this worker was doing (or nobody is doing) continue now; runs another live worker
    is doing are looked at again once their heartbeat could be stale."""
    resumed, busy = ingestion.resume_unfinished(worker)
    for run in busy:
        resume_if_stale.apply_async((run.pk, run.attempt), countdown=settings.INGEST_STALE_SECONDS)
    return resumed


@shared_task(acks_late=True)
def resume_if_stale(run_id: int, attempt: int) -> None:
    if ingestion.resume_if_silent(run_id, attempt):
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


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def draw_page(self, rendering_id: int) -> None:
    """A page drawn (or a text read) for the reader, in the reading sandbox."""
    renderings.draw(rendering_id, worker=self.request.hostname or "worker")


@at_worker_start(draw_page)
def recover_drawings(worker: str) -> tuple[list[int], list[int]]:
    return requeue(Rendering.objects, worker, draw_page.delay)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def merge_segments() -> int:
    """Join the index's small segments (apps/vault/search/merging.py); idempotent."""
    return merge()
