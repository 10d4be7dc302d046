"""One study generation in a worker (see tasks.py): claim the item, beat while the model works,
fill it and end it ready, or failed with the same message the page shows for that error. Any
other failure ends it failed too: nothing stays "generating"."""

import logging
import threading

from django.conf import settings
from django.db import DatabaseError, close_old_connections

from apps.study import kinds
from apps.study.errors import StudyError
from apps.study.generated import FAILED, GENERATING, INTERRUPTED

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
    with Heartbeat(objects, pk, worker):
        try:
            fill(item)
        except StudyError as error:
            objects.fail(pk, worker, str(error))
        except Exception:
            log.exception("generating %s %s failed", kind, pk)
            objects.fail(pk, worker, UNEXPECTED)


class Heartbeat:
    """Beats for a generation from a thread of its own while the model works, so a silent
    generation is one whose worker died (STUDY_STALE_SECONDS)."""

    def __init__(self, objects, pk: int, worker: str) -> None:
        self.beat = lambda: objects.beat(pk, worker)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"heartbeat-{pk}", daemon=True)

    def _run(self) -> None:
        seconds = max(0.5, settings.STUDY_STALE_SECONDS / 6)
        try:
            while not self.stop.wait(seconds):
                try:
                    self.beat()
                except DatabaseError:  # a busy database for a moment: the next beat counts
                    log.warning("heartbeat failed", exc_info=True)
        finally:
            close_old_connections()

    def __enter__(self) -> "Heartbeat":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join()


def recover(worker: str) -> tuple[int, list[tuple[str, int]]]:
    """At worker start: what this worker was making when it died is interrupted; what no
    worker took yet is returned to be queued again. (interrupted, [(kind, pk)])."""
    interrupted, untaken = 0, []
    for kind, made in kinds.KINDS.items():
        generating = made.model.objects.filter(status=GENERATING)
        interrupted += generating.filter(worker=worker).update(status=FAILED, error=INTERRUPTED)
        untaken += [(kind, pk) for pk in generating.filter(worker="").values_list("pk", flat=True)]
    return interrupted, untaken
