"""Celery tasks of the Study Hub: making a quiz, a workshop's outline, a lesson, a deck or a
mindmap, on the `study` queue (CELERY_TASK_ROUTES), served by the chat worker: both wait on
the model, and neither may wait behind ingestion.

Late acknowledgement: a message whose worker died is delivered again, and then finds its item
taken by a worker that went silent, so it marks it interrupted instead of making it twice. A
worker that starts settles what it was making when it died and queues again what nobody took
(a claim is atomic, so a second copy in the queue is harmless).
"""

import logging

from celery import shared_task
from celery.signals import worker_ready
from django.db import close_old_connections

from apps.study import background

logger = logging.getLogger(__name__)


def enqueue(kind: str, pk: int) -> None:
    """Queue a generation for a worker (after the transaction that started it commits)."""
    generate.delay_on_commit(kind, pk)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def generate(self, kind: str, pk: int) -> None:
    # Celery's Django fixup closes this thread's database connection after each task.
    background.run(kind, pk, worker=self.request.hostname or "worker")


def recover(worker: str) -> tuple[int, list[tuple[str, int]]]:
    interrupted, untaken = background.recover(worker)
    for kind, pk in untaken:
        enqueue(kind, pk)
    return interrupted, untaken


@worker_ready.connect
def on_worker_ready(sender, **kwargs) -> None:
    hostname = getattr(sender, "hostname", "") or ""
    queues = getattr(getattr(sender, "task_consumer", None), "queues", None) or []
    if "study" not in {queue.name for queue in queues}:
        return  # only the workers of the study queue make study material
    try:
        interrupted, queued = recover(hostname)
        if interrupted or queued:
            logger.info("Study generations interrupted %s, queued again %s", interrupted, queued)
    except Exception:  # a worker must start even when the database is not ready yet
        logger.exception("Could not recover study generations")
    finally:
        close_old_connections()
