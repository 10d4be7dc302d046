"""Celery tasks of the Study Hub: making a quiz, a workshop's outline, a lesson, a deck or a
mindmap, on the `study` queue (CELERY_TASK_ROUTES), served by the chat worker: both wait on
the model, and neither may wait behind ingestion.

Late acknowledgement: a message whose worker died is delivered again, and then finds its item
taken by a worker that went silent, so it marks it interrupted instead of making it twice. A
worker that starts settles what it was making when it died and queues again what nobody took
(apps/jobs/recovery.py; a claim is atomic, so a second copy in the queue is harmless).
"""

from celery import shared_task

from apps.jobs.recovery import at_worker_start
from apps.study import background


def enqueue(kind: str, pk: int) -> None:
    """Queue a generation for a worker (after the transaction that started it commits)."""
    generate.delay_on_commit(kind, pk)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def generate(self, kind: str, pk: int) -> None:
    # Celery's Django fixup closes this thread's database connection after each task.
    background.run(kind, pk, worker=self.request.hostname or "worker")


@at_worker_start("study")
def recover(worker: str) -> tuple[int, list[tuple[str, int]]]:
    interrupted, untaken = background.recover(worker)
    for kind, pk in untaken:
        enqueue(kind, pk)
    return interrupted, untaken
