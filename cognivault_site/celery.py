"""The Celery app, configured from Django settings (CELERY_*); tasks live in apps/*/tasks.py."""

import gc
import os

from celery import Celery
from celery.signals import worker_before_create_process, worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cognivault_site.settings")

app = Celery("cognivault_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
def prepare(**kwargs) -> None:
    """Before a worker takes its first task, what a web process prepares as it starts
    (docs/deployment.md#start-up-time): the URL table and every template. A chat worker built
    them during a class's first answers otherwise, each thread that came to a link meanwhile
    building the table again. Then it is all frozen out of the garbage collector's way, whose
    full collections would walk it while every answer of the worker waited."""
    from cognivault_site import warmup  # the apps are loaded by now, not when this is imported

    warmup.load_pages()
    gc.freeze()


@worker_before_create_process.connect
def share_with_the_child(**kwargs) -> None:
    """Right before the jobs worker forks a child: what the child inherits (Django, the app, its
    libraries) stays out of the child's garbage collector, which would otherwise write to every
    object it looks at and so copy the pages holding them into the child."""
    gc.freeze()
