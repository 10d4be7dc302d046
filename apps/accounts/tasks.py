"""Celery tasks of the accounts: hashing a new class's printed passwords, on the `celery` queue.

Late acknowledgement: a batch whose worker died is delivered again; hashing it twice is
harmless (apps/accounts/batches.py)."""

from celery import shared_task

from apps.accounts import batches
from apps.accounts.models import StudentBatch


def start(batch: StudentBatch) -> None:
    """Store the batch's passwords: now for a few, by a worker (after the commit) for more."""
    if batch.total <= batches.HASHED_IN_REQUEST:
        batches.hash_passwords(batch.pk)
        batch.refresh_from_db()
    else:
        hash_passwords.delay_on_commit(batch.pk)


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def hash_passwords(batch_id: int) -> None:
    batches.hash_passwords(batch_id)
