"""One study generation in a worker (see tasks.py): claim the item, beat while the model works,
fill it and end it ready, or failed with the same message the page shows for that error. Any
other failure ends it failed too: nothing stays "generating"."""

import logging
from collections.abc import Callable

from django.utils import timezone

from apps.jobs.lifecycle import Heartbeat
from apps.study.errors import StudyError
from apps.study.flashcards.generation import fill_generated_deck
from apps.study.flashcards.models import Deck
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
    for kind, (model, _) in KINDS.items():
        mine, waiting = model.objects.recover(worker)
        interrupted += len(mine)
        untaken += [(kind, pk) for pk in waiting]
    return interrupted, untaken
