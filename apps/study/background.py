"""One study generation in a worker (see tasks.py): claim the item, beat while the model works,
fill it and end it ready, or failed with the same message the page shows for that error. Any
other failure ends it failed too: nothing stays "generating"."""

import logging
import threading
from collections.abc import Callable

from django.conf import settings
from django.db import DatabaseError, close_old_connections
from django.utils import timezone

from apps.study.errors import StudyError
from apps.study.flashcards.generation import fill_generated_deck
from apps.study.flashcards.models import Deck
from apps.study.generated import FAILED, GENERATING, INTERRUPTED
from apps.study.mindmaps.generation import fill_mindmap
from apps.study.mindmaps.models import Mindmap
from apps.study.quizzes.generation import fill_quiz
from apps.study.quizzes.models import Quiz
from apps.study.workshops.generation import fill_lesson, fill_workshop
from apps.study.workshops.models import Lesson, Workshop

log = logging.getLogger(__name__)

# What a worker makes, by the kind the task is given: the model and the function that fills a
# row of it started in "generating".
KINDS: dict[str, tuple[type, Callable]] = {
    "quiz": (Quiz, fill_quiz),
    "workshop": (Workshop, fill_workshop),
    "lesson": (Lesson, fill_lesson),
    "deck": (Deck, lambda deck: fill_generated_deck(deck, now=timezone.now())),
    "mindmap": (Mindmap, fill_mindmap),
}
UNEXPECTED = "Something went wrong while making this. Try again."


def run(kind: str, pk: int, worker: str) -> None:
    """Make item `pk` of `kind` unless another worker has it; one taken and then left by its
    worker (a message delivered again after a crash) is marked interrupted instead."""
    model, fill = KINDS[kind]
    objects = model.objects
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
    for kind, (model, _) in KINDS.items():
        generating = model.objects.filter(status=GENERATING)
        interrupted += generating.filter(worker=worker).update(status=FAILED, error=INTERRUPTED)
        untaken += [(kind, pk) for pk in generating.filter(worker="").values_list("pk", flat=True)]
    return interrupted, untaken
