"""Recovery when a worker starts: each kind of job registers what to do for the task it queues,
and the one `worker_ready` handler runs those whose task's queue (settings.WORKER_QUEUES) the
starting worker serves. Late acknowledgement delivers a dead worker's messages again only much
later, so a worker that starts settles what it was doing when it died and queues again what
nobody took (`requeue`).
"""

import logging
from collections.abc import Callable

from celery import Task, current_app
from celery.signals import worker_ready
from django.db import close_old_connections

from apps.jobs.lifecycle import JobQuerySet

log = logging.getLogger(__name__)

StartUp = Callable[[str], object]  # given the worker's name; what it did, for the log
AT_START: dict[str, tuple[Task, StartUp]] = {}  # by the function's dotted name: (task, function)


def at_worker_start(task: Task) -> Callable[[StartUp], StartUp]:
    """Run the decorated function, with the worker's name, when a worker of `task`'s queue
    starts."""

    def register(recover: StartUp) -> StartUp:
        # The task itself, not its name: a shared task is looked up in the current Celery app
        # on first use, which at import time may not hold it yet.
        AT_START[f"{recover.__module__}.{recover.__qualname__}"] = (task, recover)
        return recover

    return register


def requeue(
    jobs: JobQuerySet,
    worker: str,
    enqueue: Callable[[int], object],
    *,
    interrupt: Callable[[JobQuerySet], list[int]] = JobQuerySet.interrupt,
) -> tuple[list[int], list[int]]:
    """At the start of `worker`: the jobs it was doing when it died are `interrupt`ed, and those
    no worker took yet are queued again with `enqueue(pk)` (a claim is atomic, so a second copy
    in the queue is harmless). Returns (interrupted, queued) ids."""
    interrupted = interrupt(jobs.running().filter(worker=worker))
    queued = list(jobs.untaken().values_list("pk", flat=True))
    for pk in queued:
        enqueue(pk)
    return interrupted, queued


@worker_ready.connect
def on_worker_ready(sender, **kwargs) -> None:
    worker = getattr(sender, "hostname", "") or ""
    consuming = getattr(getattr(sender, "task_consumer", None), "queues", None) or []
    queues = {queue.name for queue in consuming}
    for name, (task, recover) in AT_START.items():
        if current_app.amqp.router.route({}, task.name)["queue"].name not in queues:
            continue
        try:
            done = recover(worker)
            if any(done) if isinstance(done, tuple) else done:
                log.info("At the start of %s, %s: %s", worker, name, done)
        except Exception:  # a worker must start even when the database is not ready yet
            log.exception("At the start of %s, %s failed", worker, name)
        finally:
            close_old_connections()
