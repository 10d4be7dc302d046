"""Celery tasks of ingestion: thin carriers of pipeline steps (see pipeline.py for the rules).

A run is a chain of `ingest_step` tasks. Steps are idempotent, so a redelivered message is
harmless; a task of a superseded attempt stops its chain. When a worker starts, it resumes the
unfinished runs from their checkpoints instead of waiting for Redis to redeliver in an hour.
"""

import logging

from celery import chain, shared_task
from celery.exceptions import Ignore
from celery.signals import worker_ready
from django.conf import settings
from django.db import close_old_connections

from apps.vault import index, pipeline

logger = logging.getLogger(__name__)


def start_chain(run_id: int, attempt: int, steps: tuple[str, ...] | list[str]) -> None:
    chain(*(ingest_step.si(run_id, name, attempt) for name in steps)).apply_async()


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, max_retries=None)
def ingest_step(self, run_id: int, name: str, attempt: int) -> None:
    try:
        pipeline.run_step(run_id, name, attempt, worker=self.request.hostname or "")
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
    pipeline.resume_if_stale(run_id, attempt)


@worker_ready.connect
def resume_unfinished_runs(sender, **kwargs) -> None:
    hostname = getattr(sender, "hostname", "") or ""
    try:
        resumed = pipeline.resume_unfinished_runs(hostname)
        if resumed:
            logger.info("Resumed ingestion runs %s", resumed)
    except Exception:  # a worker must start even when the database is not ready yet
        logger.exception("Could not resume unfinished ingestion runs")
    finally:
        close_old_connections()


@shared_task
def reembed_chunks() -> int:
    """Re-embed chunks made with another model after the embedding model was switched."""
    return index.reembed_stale()
