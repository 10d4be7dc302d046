"""The background-job base: one claim, heartbeats, a silent job settled as interrupted, the one
loop a worker does a job in (`run_claimed`), and the recovery a worker runs when it starts, for
the queues it serves."""

import logging
import time
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.apps.registry import Apps
from django.db import connection, models

from apps.jobs import recovery
from apps.jobs.lifecycle import Job, JobQuerySet, run_claimed
from tests.helpers.clock import MIDDAY


class ChoreQuerySet(JobQuerySet):
    INTERRUPTED = "Interrupted: do it again."
    STALE_SETTING = "CHORE_STALE_SECONDS"


# An app registry of its own: the model stays out of Django's (no content type for a flush to
# create twice), as a real kind of job would be in its own app.
CHORES = Apps(["apps.jobs"])


class Chore(Job):
    """A kind of job of these tests only; its table lives as long as this module's tests."""

    status = models.CharField(max_length=10, default="running")
    error = models.TextField(blank=True)
    worker = models.CharField(max_length=200, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    objects = ChoreQuerySet.as_manager()

    class Meta:
        app_label = "jobs"
        apps = CHORES

    def __str__(self) -> str:
        return f"Chore {self.pk} ({self.status})"


@pytest.fixture(scope="module", autouse=True)
def chore_table(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        with connection.schema_editor() as editor:
            editor.create_model(Chore)
        yield
        with connection.schema_editor() as editor:
            editor.delete_model(Chore)


@pytest.fixture(autouse=True)
def stale_seconds(settings):
    settings.CHORE_STALE_SECONDS = 30


@pytest.fixture
def committed():
    """For a test whose writes are committed (the mark below): the flush after it leaves this
    table alone. Serialized rollback, as the suite's other committing tests: a plain flush
    would write the content types again, and the next test that restores them would fail."""
    yield
    Chore.objects.all().delete()


COMMITTING = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def taken(*workers: str) -> list[Chore]:
    chores = [Chore.objects.create() for _ in workers]
    for chore, worker in zip(chores, workers, strict=True):
        if worker:
            Chore.objects.claim(chore.pk, worker)
    return chores


@pytest.mark.django_db
def test_only_one_worker_claims_a_job(midday):
    chore = Chore.objects.create()
    assert Chore.objects.claim(chore.pk, "w@a")
    assert not Chore.objects.claim(chore.pk, "w@b")
    chore.refresh_from_db()
    assert (chore.worker, chore.heartbeat_at) == ("w@a", MIDDAY)


@pytest.mark.django_db
def test_a_beat_is_a_sign_of_life_until_the_job_ends(midday):
    [chore] = taken("w@a")
    midday.shift(timedelta(seconds=10))
    assert Chore.objects.beat(chore.pk, error="half done")
    chore.refresh_from_db()
    assert (chore.error, chore.heartbeat_at) == ("half done", MIDDAY + timedelta(seconds=10))

    assert Chore.objects.finish(chore.pk, "w@a", status="done")
    assert not Chore.objects.beat(chore.pk)


@pytest.mark.django_db
def test_a_job_is_stale_once_its_worker_is_silent_for_the_settings_seconds(midday, settings):
    settings.CHORE_STALE_SECONDS = 30
    chore, _untaken = taken("w@a", "")
    midday.shift(timedelta(seconds=30))
    assert not Chore.objects.stale().exists()
    midday.shift(timedelta(seconds=1))
    assert list(Chore.objects.stale()) == [chore]  # waiting for a worker is not silence


@pytest.mark.django_db
def test_a_stale_job_is_settled_as_interrupted_and_a_live_one_is_left(midday, settings):
    settings.CHORE_STALE_SECONDS = 30
    dead, alive, done = taken("w@a", "w@a", "w@a")
    Chore.objects.finish(done.pk, "w@a", status="done")
    midday.shift(timedelta(seconds=31))
    Chore.objects.beat(alive.pk)

    assert Chore.objects.settle_stale() == [dead.pk]
    statuses = dict(Chore.objects.values_list("pk", "status"))
    assert statuses == {dead.pk: "failed", alive.pk: "running", done.pk: "done"}
    assert Chore.objects.get(pk=dead.pk).error == "Interrupted: do it again."


@pytest.mark.django_db
def test_a_job_seen_once_its_worker_went_silent_is_settled_on_sight(midday, settings):
    settings.CHORE_STALE_SECONDS = 30
    [chore] = taken("w@a")
    assert not chore.settle()
    midday.shift(timedelta(seconds=31))
    assert chore.settle()
    assert (chore.status, chore.error) == ("failed", "Interrupted: do it again.")
    assert Chore.objects.get(pk=chore.pk).status == "failed"


@pytest.mark.django_db
def test_only_the_worker_holding_a_job_ends_it_and_a_failed_one_can_start_again():
    [chore] = taken("w@a")
    assert not Chore.objects.fail(chore.pk, "w@b", "not mine")
    assert Chore.objects.fail(chore.pk, "w@a", "x" * 3000)
    assert not Chore.objects.finish(chore.pk, "w@a", status="done")
    assert Chore.objects.get(pk=chore.pk).error == "x" * 2000

    assert Chore.objects.restart(chore.pk)
    assert Chore.objects.claim(chore.pk, "w@b")


@pytest.mark.django_db
def test_a_restarted_worker_interrupts_what_it_was_doing_and_queues_what_nobody_took():
    mine, others, untaken = taken("w@here", "w@elsewhere", "")
    queued = []
    assert recovery.requeue(Chore.objects, "w@here", queued.append) == ([mine.pk], [untaken.pk])
    assert queued == [untaken.pk]
    statuses = dict(Chore.objects.values_list("pk", "status"))
    assert statuses == {mine.pk: "failed", others.pk: "running", untaken.pk: "running"}


class Spoilt(Exception):
    """An error a kind of job expects: its message is for the person."""


def run(pk: int, worker: str, work, *, unexpected: str = "Try again.", **options) -> None:
    run_claimed(Chore.objects, pk, worker, work, unexpected=unexpected, **options)


@pytest.mark.django_db
def test_a_job_is_done_once_and_ended_with_what_its_work_returns():
    chore = Chore.objects.create()
    run(chore.pk, "w@a", lambda: {"status": "done", "error": "none"})
    ran = []
    run(chore.pk, "w@b", lambda: ran.append("again"))  # delivered twice
    chore.refresh_from_db()
    assert (chore.status, chore.error, chore.worker, ran) == ("done", "none", "w@a", [])


@pytest.mark.django_db
def test_a_job_whose_work_ends_it_itself_is_left_as_the_work_left_it():
    chore = Chore.objects.create()

    def make() -> None:
        Chore.objects.finish(chore.pk, "w@a", status="made")

    run(chore.pk, "w@a", make)
    assert Chore.objects.get(pk=chore.pk).status == "made"


@pytest.mark.django_db
def test_an_expected_error_fails_the_job_with_its_message_and_cleans_up():
    chore, cleaned = Chore.objects.create(), []

    def spoil():
        raise Spoilt("The file is damaged.")

    run(chore.pk, "w@a", spoil, expected=Spoilt, on_error=lambda: cleaned.append(1))
    chore.refresh_from_db()
    assert (chore.status, chore.error, cleaned) == ("failed", "The file is damaged.", [1])


@pytest.mark.django_db
def test_anything_else_is_logged_and_fails_the_job_with_a_message_of_its_kind(caplog):
    plain, own, cleaned = Chore.objects.create(), Chore.objects.create(), []

    def bug():
        raise KeyError("a bug")

    with caplog.at_level(logging.ERROR, logger="apps.jobs.lifecycle"):
        run(plain.pk, "w@a", bug, on_error=lambda: cleaned.append(1))
        run(own.pk, "w@a", bug, expected=Spoilt, unexpected="Do it again.")

    errors = dict(Chore.objects.values_list("pk", "error"))
    assert errors == {plain.pk: "Try again.", own.pk: "Do it again."} and cleaned == [1]
    assert [record.exc_info[0] for record in caplog.records] == [KeyError, KeyError]


@pytest.mark.django_db
def test_a_job_taken_by_a_worker_gone_silent_is_interrupted_not_done_again(midday, settings):
    settings.CHORE_STALE_SECONDS = 30
    alive, dead = taken("w@alive", "w@dead")
    midday.shift(timedelta(seconds=31))
    Chore.objects.beat(alive.pk)
    shown, ran = [], []

    def interrupt(stale):
        shown.append(list(stale))
        return stale.interrupt()

    for chore in (alive, dead):  # each message delivered again to another worker
        run(chore.pk, "w@b", lambda: ran.append(1), interrupt=interrupt)

    assert ran == [] and shown == [[], [dead]]
    statuses = dict(Chore.objects.values_list("pk", "status"))
    assert statuses == {alive.pk: "running", dead.pk: "failed"}


@COMMITTING
def test_a_job_beats_from_its_own_thread_while_the_worker_is_busy(settings, committed):
    settings.CHORE_STALE_SECONDS = 3  # a beat every 0.5 s
    chore = Chore.objects.create()

    def busy():
        claimed = Chore.objects.get(pk=chore.pk).heartbeat_at
        while Chore.objects.get(pk=chore.pk).heartbeat_at == claimed:
            time.sleep(0.05)  # until the heartbeat thread has written a beat

    run(chore.pk, "w@a", busy)
    assert Chore.objects.get(pk=chore.pk).status == "running"  # the work did not end it


@COMMITTING
def test_a_starting_worker_recovers_the_jobs_of_the_queues_it_serves(monkeypatch, committed):
    """By the queue each recovery's task is routed to (settings.WORKER_QUEUES)."""
    monkeypatch.setattr(recovery, "AT_START", {})
    taken("w@here")
    ran = []
    chat_task = SimpleNamespace(name="apps.chat.tasks.chore")
    study_task = SimpleNamespace(name="apps.study.tasks.chore")

    @recovery.at_worker_start(chat_task)
    def broken(worker: str):
        raise RuntimeError("no database yet")  # ...does not keep the worker from starting

    @recovery.at_worker_start(chat_task)
    def recover_chores(worker: str):
        ran.append(worker)
        return recovery.requeue(Chore.objects, worker, ran.append)

    @recovery.at_worker_start(study_task)
    def recover_errands(worker: str):
        ran.append("errands")

    queues = [SimpleNamespace(name="chat"), SimpleNamespace(name="other")]
    worker = SimpleNamespace(hostname="w@here", task_consumer=SimpleNamespace(queues=queues))
    recovery.on_worker_ready(sender=worker)

    assert ran == ["w@here"]
    assert Chore.objects.get().status == "failed"
