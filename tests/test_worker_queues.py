"""The queues are named once, in settings.WORKER_QUEUES: Celery's routing is made from it, and
the worker commands that cannot import Python (the Procfile, compose.yaml) and the tests' own
running app are checked against it here, so a queue added in one place and not the others fails
before a question waits for a worker that never comes. And what a worker does before its first
task, and the jobs worker before it forks its children (cognivault_site/celery.py)."""

import re
from pathlib import Path

from django.conf import settings

from cognivault_site.celery import app
from tests.helpers.fresh_python import printed
from tests.helpers.running_app import worker_command

ROOT = Path(__file__).resolve().parent.parent
# A fresh jobs worker's main process, right before its pool forks a child.
FORKING = """
import gc
from celery.signals import worker_before_create_process
from cognivault_site.celery import app
print(gc.get_freeze_count())
worker_before_create_process.send(sender=None)
print(gc.get_freeze_count() > 0)
"""

# A fresh worker as Celery starts one: its tasks imported (which sets Django up), then told that
# it is starting, as the worker does before it takes a task or forks a child.
STARTING = """
import gc
from celery.signals import worker_init
from django.template import engines
from django.template.base import Template
from django.urls import get_resolver
from cognivault_site.celery import app
app.loader.import_default_modules()
print(get_resolver()._populated, gc.get_freeze_count() > 0)
worker_init.send(sender=None)
compiled = []
Template.compile_nodelist = lambda self: compiled.append(self.origin.name)
engines["django"].get_template("chat/thread.html")
print(get_resolver()._populated, gc.get_freeze_count() > 0, compiled == [])
"""


def served(commands: list[str]) -> list[str]:
    """The queues the Celery workers among `commands` consume, each time one does."""
    return [
        queue
        for command in commands
        if re.search(r"\bcelery\b.*\bworker\b", command)
        for queue in re.search(r"-Q\s+(\S+)", command).group(1).split(",")
    ]


def test_the_procfile_workers_serve_every_queue_once():
    assert sorted(served((ROOT / "Procfile").read_text().splitlines())) == sorted(
        settings.WORKER_QUEUES
    )


def test_the_compose_workers_serve_every_queue_once():
    assert sorted(served((ROOT / "compose.yaml").read_text().splitlines())) == sorted(
        settings.WORKER_QUEUES
    )


def test_the_tests_running_app_starts_workers_for_every_queue():
    commands = [" ".join(map(str, worker_command(kind, 8000))) for kind in ("celery", "chat")]
    assert sorted(served(commands)) == sorted(settings.WORKER_QUEUES)


def test_every_task_is_routed_to_a_queue_a_worker_serves():
    app.loader.import_default_modules()
    tasks = [name for name in app.tasks if not name.startswith("celery.")]
    queues = {name: app.amqp.router.route({}, name)["queue"].name for name in tasks}
    assert len(tasks) > 5
    assert set(queues.values()) == set(settings.WORKER_QUEUES)
    # Names before their app's glob: the jobs worker reads attachments and decodes recordings.
    assert queues["apps.chat.tasks.read_attachment"] == "celery"
    assert queues["apps.chat.tasks.transcribe_recording"] == "celery"


def test_the_jobs_worker_freezes_what_it_has_made_before_it_forks_a_child(tmp_path):
    """So the child's garbage collector leaves the pages it shares with its parent unwritten."""
    assert printed(FORKING, tmp_path) == ["0", "True"]


def test_a_worker_builds_the_url_table_and_compiles_the_templates_before_its_first_task(tmp_path):
    """Else a chat worker's first answers built them, each thread that reached a link at once
    building the whole URL table; and frozen, the collector's full collections leave it alone."""
    assert printed(STARTING, tmp_path) == ["False", "False", "True", "True", "True"]
