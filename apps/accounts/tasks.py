"""Celery tasks of the accounts: hashing a new class's printed passwords, on the `celery` queue.

Late acknowledgement: a batch whose worker died is delivered again, and a worker that starts
queues again the batches still hashing; hashing one twice is harmless
(apps/accounts/batches.py)."""

import logging

from celery import shared_task
from celery.signals import worker_ready
from django.db import close_old_connections, transaction

from apps.accounts import batches
from apps.accounts.models import StudentBatch

logger = logging.getLogger(__name__)


def start(batch: StudentBatch) -> None:
    """Store the batch's passwords: now for a few, by a worker (after the commit) for more."""
    if batch.total <= batches.HASHED_IN_REQUEST:
        batches.hash_passwords(batch.pk)
        batch.refresh_from_db()
    else:
        enqueue(batch.pk)


def enqueue(batch_id: int) -> None:
    # Robust: with Redis down the accounts exist all the same and their cards are shown; the
    # Classroom page lists the batch as unfinished, and a worker that starts queues it again.
    transaction.on_commit(lambda: hash_passwords.delay(batch_id), robust=True)


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def hash_passwords(batch_id: int) -> None:
    batches.hash_passwords(batch_id)


def requeue_unfinished() -> list[int]:
    hashing = StudentBatch.objects.filter(status=StudentBatch.Status.HASHING)
    queued = list(hashing.values_list("pk", flat=True))
    for batch_id in queued:
        hash_passwords.delay(batch_id)
    return queued


# Its own start hook rather than apps.jobs.recovery's: accounts sit below the background-job
# base in the layers (pyproject.toml), so they cannot register there.
@worker_ready.connect
def on_worker_ready(sender, **kwargs) -> None:
    queues = getattr(getattr(sender, "task_consumer", None), "queues", None) or []
    if "celery" not in {queue.name for queue in queues}:
        return  # only the workers of the `celery` queue hash passwords
    try:
        requeue_unfinished()
    except Exception:  # a worker must start even when the database is not ready yet
        logger.exception("Could not queue the unfinished student batches again")
    finally:
        close_old_connections()
