"""One study generation in a worker (see tasks.py): claim the item, beat while the model works,
fill it and end it ready, or failed with the same message the page shows for that error. Any
other failure ends it failed too: nothing stays "generating"."""

import logging

from apps.jobs.lifecycle import Heartbeat
from apps.study import kinds
from apps.study.errors import StudyError

log = logging.getLogger(__name__)

UNEXPECTED = "Something went wrong while making this. Try again."


def run(kind: str, pk: int, worker: str) -> None:
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


def recover(worker: str) -> tuple[int, list[tuple[str, int]]]:
    """At worker start: what this worker was making when it died is interrupted; what no
    worker took yet is returned to be queued again. (interrupted, [(kind, pk)])."""
    interrupted, untaken = 0, []
    for kind, made in kinds.KINDS.items():
        mine, waiting = made.model.objects.recover(worker)
        interrupted += len(mine)
        untaken += [(kind, pk) for pk in waiting]
    return interrupted, untaken
