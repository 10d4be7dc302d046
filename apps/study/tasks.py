"""Celery tasks of the Study Hub: making a quiz, a workshop's outline, a lesson, a deck or a
mindmap, on the `study` queue (CELERY_TASK_ROUTES), served by the chat worker: both wait on
the model, and neither may wait behind ingestion.

A worker claims the item, beats while the model works, fills it and ends it ready, or failed
with the same message the page shows for that error. Any other failure ends it failed too:
nothing stays "generating".

Late acknowledgement: a message whose worker died is delivered again, and then finds its item
taken by a worker that went silent, so it marks it interrupted instead of making it twice. A
worker that starts settles what it was making when it died and queues again what nobody took
(apps/jobs/recovery.py; a claim is atomic, so a second copy in the queue is harmless).
"""

import logging

from celery import shared_task

from apps.jobs.lifecycle import Heartbeat
from apps.jobs.recovery import at_worker_start
from apps.study import kinds
from apps.study.errors import StudyError

log = logging.getLogger(__name__)

UNEXPECTED = "Something went wrong while making this. Try again."


def enqueue(kind: str, pk: int) -> None:
    """Queue a generation for a worker (after the transaction that started it commits)."""
    generate.delay_on_commit(kind, pk)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def generate(self, kind: str, pk: int) -> None:
    # Celery's Django fixup closes this thread's database connection after each task.
    make(kind, pk, worker=self.request.hostname or "worker")


def make(kind: str, pk: int, worker: str) -> None:
    """Make item `pk` of `kind` unless another worker has it; one taken and then left by its
    worker (a message delivered again after a crash) is marked interrupted instead."""
    made = kinds.get(kind)  # what a worker makes of this kind, and how
    fill, objects = made.fill, made.model.objects
    if not objects.claim(pk, worker):
        objects.filter(pk=pk).settle_stale()
        return
    item = objects.get(pk=pk)
    with Heartbeat(objects.filter(worker=worker), pk):
        try:
            fill(item)
        except StudyError as error:
            objects.fail(pk, worker, str(error))
        except Exception:
            log.exception("generating %s %s failed", kind, pk)
            objects.fail(pk, worker, UNEXPECTED)


@at_worker_start("study")
def recover(worker: str) -> tuple[int, list[tuple[str, int]]]:
    """At worker start: what this worker was making when it died is interrupted; what no
    worker took yet is queued again. (interrupted, [(kind, pk)])."""
    interrupted, untaken = 0, []
    for kind, made in kinds.KINDS.items():
        mine, waiting = made.model.objects.recover(worker)
        interrupted += len(mine)
        untaken += [(kind, pk) for pk in waiting]
    for kind, pk in untaken:
        enqueue(kind, pk)
    return interrupted, untaken
