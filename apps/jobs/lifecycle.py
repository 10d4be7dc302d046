"""The rows a worker works on: a worker claims a row (an atomic update: one worker ever has it),
beats while it works and ends it, or fails it with the reason (`run_claimed`, the one loop every
job of a single row runs through). A row whose worker went silent for the kind's stale seconds
was cut short (the worker was killed): it is settled as interrupted, so nothing stays "running"
for ever.
"""

import logging
import threading
from collections.abc import Callable
from contextlib import nullcontext
from datetime import datetime, timedelta

from celery import current_app
from django.conf import settings
from django.db import DatabaseError, close_old_connections, models, transaction
from django.utils import timezone

log = logging.getLogger(__name__)


class JobQuerySet(models.QuerySet):
    """For a model with `status`, `error`, `worker` and `heartbeat_at` fields. A kind names its
    statuses, its interrupted message and the setting with its stale seconds."""

    RUNNING = "running"  # the status of a job being done, or waiting for a worker
    FAILED = "failed"
    INTERRUPTED = "Interrupted: the worker doing this stopped. Try again."
    STALE_SETTING = ""  # the setting: seconds of silence after which a worker is taken for dead

    def stale_seconds(self) -> float:
        return getattr(settings, self.STALE_SETTING)

    def cutoff(self) -> datetime:
        """A heartbeat before this is a dead worker's."""
        return timezone.now() - timedelta(seconds=self.stale_seconds())

    def running(self) -> "JobQuerySet":
        return self.filter(status=self.RUNNING)

    def untaken(self) -> "JobQuerySet":
        return self.running().filter(worker="")

    def claim(self, pk: int, worker: str) -> bool:
        """Take a job nobody has started; only one worker ever wins it."""
        return bool(self.untaken().filter(pk=pk).update(worker=worker, heartbeat_at=timezone.now()))

    def beat(self, pk: int, **fields) -> bool:
        """A sign of life of a running job (saving `fields` with it); False once it ended."""
        return bool(self.running().filter(pk=pk).update(heartbeat_at=timezone.now(), **fields))

    def finish(self, pk: int, worker: str, **fields) -> bool:
        """End the job with `fields` (its status among them) if `worker` still holds it; False
        when it does not (settled as interrupted meanwhile, perhaps retried since)."""
        return bool(self.running().filter(pk=pk, worker=worker).update(**fields))

    def fail(self, pk: int, worker: str, error: str) -> bool:
        return self.finish(pk, worker, status=self.FAILED, error=error[:2000])

    def restart(self, pk: int, *ended: str) -> bool:
        """An ended job (failed, or one of `ended`) back to waiting for a worker."""
        restarting = self.filter(pk=pk, status__in=ended or [self.FAILED])
        return bool(restarting.update(status=self.RUNNING, error="", worker="", heartbeat_at=None))

    def stale(self) -> "JobQuerySet":
        """Jobs a worker took and then went silent on (killed, or its machine gone)."""
        return self.running().filter(heartbeat_at__lt=self.cutoff()).exclude(worker="")

    def alive(self) -> "JobQuerySet":
        """Running jobs that will still end: waiting for a worker, or whose worker still beats
        (one whose worker went silent never will)."""
        return self.running().exclude(~models.Q(worker=""), heartbeat_at__lt=self.cutoff())

    def interrupt(self) -> list[int]:
        """Mark these running jobs failed as interrupted (what they made so far stays); ids."""
        ids = list(self.running().values_list("pk", flat=True))
        if ids:
            self.model._default_manager.filter(pk__in=ids, status=self.RUNNING).update(
                status=self.FAILED, error=self.INTERRUPTED
            )
        return ids

    def settle_stale(self) -> list[int]:
        return self.stale().interrupt()


class Job(models.Model):
    """A model whose rows are jobs (its manager a JobQuerySet)."""

    class Meta:
        abstract = True

    def settle(self) -> bool:
        """Seen while running: if its worker went silent, it failed as interrupted."""
        jobs = type(self)._default_manager.filter(pk=self.pk)
        if self.status == jobs.RUNNING and jobs.settle_stale():
            self.status, self.error = jobs.FAILED, jobs.INTERRUPTED
            return True
        return False


class Heartbeat:
    """Beats for a job from a thread of its own while the worker is busy, six times within the
    stale seconds, so a silent job is one whose worker died."""

    def __init__(self, jobs: JobQuerySet, pk: int) -> None:
        self.jobs, self.pk, self.stop = jobs, pk, threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"heartbeat-{pk}", daemon=True)

    def _run(self) -> None:
        try:
            while not self.stop.wait(max(0.5, self.jobs.stale_seconds() / 6)):
                try:
                    self.jobs.beat(self.pk)
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


def run_claimed(
    jobs: JobQuerySet,
    pk: int,
    worker: str,
    work: Callable[[], dict | None],
    *,
    unexpected: str,
    expected: type[Exception] | tuple[type[Exception], ...] = (),
    interrupt: Callable[[JobQuerySet], object] = JobQuerySet.interrupt,
    beat: bool = True,
    on_error: Callable[[], object] | None = None,
) -> None:
    """Do job `pk` of `jobs` as `worker` if it claims it; one taken by a worker gone silent (a
    message delivered again after a crash) is `interrupt`ed instead of done twice. A Heartbeat
    beats while `work()` runs (`beat=False`: the work beats itself). Then the job is ended with
    the fields `work` returns (None: the work ended it), or failed with the message of an
    `expected` error, or, for anything else, logged and failed with `unexpected`, and
    `on_error()` cleans up. Nothing stays running.

    Ingestion does not come through here (apps/vault/ingestion.py): a run is a chain of tasks,
    a step each, fenced by its attempt number rather than one worker's claim, and a run left by
    a dead worker resumes from its checkpoints instead of ending interrupted."""
    if not jobs.claim(pk, worker):
        interrupt(jobs.filter(pk=pk).stale())
        return
    try:
        with Heartbeat(jobs.filter(worker=worker), pk) if beat else nullcontext():
            fields = work()
    except expected as error:
        message = str(error)
    except Exception:
        log.exception("%s %s failed in %s", jobs.model.__name__, pk, worker)
        message = unexpected
    else:
        if fields is not None:
            jobs.finish(pk, worker, **fields)
        return
    jobs.fail(pk, worker, message)
    if on_error is not None:
        on_error()


def send_on_commit(task_name: str, what: str) -> None:
    """Queue the task by its name once the transaction commits (the caller's module need not
    import the tasks module, which imports it). No broker must not break the caller's request:
    it is logged, and the next request asks again."""

    def send() -> None:
        try:
            current_app.send_task(task_name)
        except Exception:
            log.warning("Could not enqueue %s.", what, exc_info=True)

    transaction.on_commit(send)
