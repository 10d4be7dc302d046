"""Celery tasks of the Study Hub: making a quiz, a workshop's outline, a lesson, a deck or a
mindmap, on the `study` queue (settings.WORKER_QUEUES), served by the chat worker: both wait on
the model, and neither may wait behind ingestion.

A worker makes an item through apps/jobs' run_claimed: it ends ready, or failed with the same
message the page shows for that error, or with UNEXPECTED for anything else. A worker that
starts settles what it was making when it died and queues again what nobody took.
"""

from celery import shared_task

from apps.jobs.lifecycle import run_claimed
from apps.jobs.recovery import at_worker_start, requeue
from apps.study import kinds
from apps.study.errors import StudyError

UNEXPECTED = "Something went wrong while making this. Try again."


def enqueue(kind: str, pk: int) -> None:
    """Queue a generation for a worker (after the transaction that started it commits)."""
    generate.delay_on_commit(kind, pk)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def generate(self, kind: str, pk: int) -> None:
    # Celery's Django fixup closes this thread's database connection after each task.
    make(kind, pk, worker=self.request.hostname or "worker")


def make(kind: str, pk: int, worker: str) -> None:
    """Make item `pk` of `kind` (its `fill` ends it ready) unless another worker has it."""
    made = kinds.get(kind)
    objects = made.model.objects

    def fill() -> None:  # the kind's fill ends the item ready itself (what it returns is its own)
        made.fill(objects.get(pk=pk))

    run_claimed(objects, pk, worker, fill, expected=StudyError, unexpected=UNEXPECTED)


@at_worker_start(generate)
def recover(worker: str) -> tuple[int, list[tuple[str, int]]]:
    """Each kind's items: (how many were interrupted, [(kind, pk) queued again])."""
    interrupted, queued = 0, []
    for kind, made in kinds.KINDS.items():
        mine, waiting = requeue(made.model.objects, worker, lambda pk, k=kind: enqueue(k, pk))
        interrupted += len(mine)
        queued += [(kind, pk) for pk in waiting]
    return interrupted, queued
