"""An ingestion run: starting one, running its steps (ingest_steps.py), resuming one a worker
left, failing one.

A run is a Celery chain of `ingest_step` tasks, one a step, then the search check (tasks.py).
Steps are idempotent, so a redelivered message is harmless. It is the one job that does not go
through apps/jobs' run_claimed: each step may be taken by another worker, so a run is fenced by
its attempt number rather than by one worker's claim (a task of a superseded attempt raises
StaleAttempt and stops its chain), and a run whose worker died is not ended interrupted but
resumed from its checkpoints under a new attempt, when a worker of its queue starts.
"""

import logging
from contextlib import nullcontext

from celery import chain, signature
from django.db import transaction
from django.utils import timezone

from apps.vault.ingest_steps import STEPS
from apps.vault.models import Document, IngestRun, IngestStep, StaleAttempt

log = logging.getLogger(__name__)

# The tasks that carry a run (tasks.py), queued by name: their names stay as they are, so
# messages queued before an upgrade still find their task.
STEP_TASK = "apps.vault.tasks.ingest_step"
SELFTEST_TASK = "apps.vault.tasks.vault_selftest"


@transaction.atomic
def start_run(owner, document_ids: list[int] | None = None) -> IngestRun:
    """A new run over the given documents (default: all the owner may change), queued after
    the transaction commits."""
    run = IngestRun.objects.create(owner=owner, document_ids=sorted(document_ids or []), attempt=1)
    IngestStep.objects.bulk_create(
        IngestStep(run=run, position=position, name=name) for position, name in enumerate(STEPS)
    )
    transaction.on_commit(lambda: enqueue(run.pk, run.attempt, next(iter(STEPS))))
    return run


def enqueue(run_id: int, attempt: int, first_step: str) -> None:
    """The run's steps from `first_step`, then its search self-test (a failed step stops the
    chain before it)."""
    names = list(STEPS)[list(STEPS).index(first_step) :]
    steps = [signature(STEP_TASK, args=(run_id, name, attempt), immutable=True) for name in names]
    chain(*steps, signature(SELFTEST_TASK, args=(run_id,), immutable=True)).apply_async()


def resume(run_id: int) -> bool:
    """Continue a run from its first unfinished step under a new attempt number."""
    with transaction.atomic():
        run = IngestRun.objects.filter(pk=run_id).first()
        if run is None or run.finished:
            return False
        run.attempt += 1
        run.save(update_fields=["attempt"])
        step = run.steps.exclude(status=IngestStep.Status.DONE).order_by("position").first()
        first = step.name if step else list(STEPS)[-1]
        attempt = run.attempt
        transaction.on_commit(lambda: enqueue(run_id, attempt, first))
    log.info("Resuming ingestion run %s at step %s (attempt %s)", run_id, first, attempt)
    return True


def silent(run: IngestRun) -> bool:
    """No sign of life from the run's worker within INGEST_STALE_SECONDS."""
    return run.heartbeat_at is None or run.heartbeat_at < IngestRun.objects.cutoff()


def resume_unfinished(worker: str) -> tuple[list[int], list[IngestRun]]:
    """At the start of `worker`: the runs it was doing, or nobody is, continue now. (Their ids,
    and the runs another live worker is doing, to look at again once they could be silent.)"""
    resumed, busy = [], []
    for run in IngestRun.objects.unfinished():
        if run.worker not in ("", worker) and not silent(run):
            busy.append(run)
        elif resume(run.pk):
            resumed.append(run.pk)
    return resumed, busy


def resume_if_silent(run_id: int, attempt: int) -> bool:
    """Resume the run if this attempt's worker went silent; True while it is alive (look again
    later)."""
    run = IngestRun.objects.filter(pk=run_id, attempt=attempt).first()
    if run is None or run.finished:
        return False
    if silent(run):
        resume(run_id)
        return False
    return True


def run_step(run_id: int, name: str, attempt: int, worker: str = "") -> None:
    """Execute one step of a run unless it is already done; the last one ends the run. Raises
    StaleAttempt for a task of another attempt or of a finished run."""
    with transaction.atomic():
        run = IngestRun.objects.filter(pk=run_id).first()
        if run is None or run.attempt != attempt or run.finished:
            raise StaleAttempt(f"run {run_id} attempt {attempt} is not current")
        now = timezone.now()
        run.status = IngestRun.Status.RUNNING
        run.started_at = run.started_at or now
        run.worker, run.heartbeat_at = worker, now
        run.save(update_fields=["status", "started_at", "worker", "heartbeat_at"])
        step = run.steps.get(name=name)
        if step.status == IngestStep.Status.DONE:
            return
        step.status = IngestStep.Status.RUNNING
        step.started_at = step.started_at or now
        step.save(update_fields=["status", "started_at"])
    last = name == list(STEPS)[-1]
    # The last step's work and the run's end are one transaction: the index step makes the new
    # chunks live and ends the run at once.
    with transaction.atomic() if last else nullcontext():
        STEPS[name](run, step)
        with transaction.atomic():
            run.touch()
            step.finish()
            if last:
                ended = IngestRun.objects.filter(pk=run.pk)
                ended.update(status=IngestRun.Status.DONE, finished_at=timezone.now())


def fail_run(run_id: int, reason: str) -> None:
    """End a run as failed; its documents wait for the next run, which starts from the
    checkpoints this one left."""
    with transaction.atomic():
        run = IngestRun.objects.filter(pk=run_id).first()
        if run is None or run.finished:
            return
        now = timezone.now()
        run.status, run.error, run.finished_at = IngestRun.Status.FAILED, reason, now
        run.save(update_fields=["status", "error", "finished_at"])
        run.steps.filter(status=IngestStep.Status.RUNNING).update(
            status=IngestStep.Status.FAILED, detail=reason[:300], finished_at=now
        )
        run.documents.filter(status=Document.Status.PROCESSING).update(
            status=Document.Status.PENDING
        )
