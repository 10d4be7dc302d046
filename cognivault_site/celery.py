"""The Celery app, configured from Django settings (CELERY_*); tasks live in apps/*/tasks.py."""

import gc
import os

from celery import Celery
from celery.signals import worker_before_create_process

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cognivault_site.settings")

app = Celery("cognivault_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_before_create_process.connect
def share_with_the_child(**kwargs) -> None:
    """Right before the jobs worker forks a child: what the child inherits (Django, the app, its
    libraries) stays out of the child's garbage collector, which would otherwise write to every
    object it looks at and so copy the pages holding them into the child."""
    gc.freeze()
