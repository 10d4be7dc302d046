"""Recovery when a worker starts: each kind of job registers what to do for the queue its
tasks run on, and the one `worker_ready` handler runs what the starting worker's queues need.
Late acknowledgement delivers a dead worker's messages again only much later, so a worker that
starts settles what it was doing when it died and queues again what nobody took.
"""

import logging
from collections.abc import Callable

from celery.signals import worker_ready
from django.db import close_old_connections

log = logging.getLogger(__name__)

Recover = Callable[[str], object]  # given the worker's name; what it did, for the log
RECOVERIES: dict[str, tuple[str, Recover]] = {}  # by the function's dotted name


def at_worker_start(queue: str) -> Callable[[Recover], Recover]:
    """Run the decorated function, with the worker's name, when a worker of `queue` starts."""

    def register(recover: Recover) -> Recover:
        RECOVERIES[f"{recover.__module__}.{recover.__qualname__}"] = (queue, recover)
        return recover

    return register


@worker_ready.connect
def on_worker_ready(sender, **kwargs) -> None:
    worker = getattr(sender, "hostname", "") or ""
    consuming = getattr(getattr(sender, "task_consumer", None), "queues", None) or []
    queues = {queue.name for queue in consuming}
    for name, (queue, recover) in RECOVERIES.items():
        if queue not in queues:
            continue
        try:
            done = recover(worker)
            if any(done) if isinstance(done, tuple) else done:
                log.info("At the start of %s, %s: %s", worker, name, done)
        except Exception:  # a worker must start even when the database is not ready yet
            log.exception("Could not recover at the start of %s: %s", worker, name)
        finally:
            close_old_connections()
