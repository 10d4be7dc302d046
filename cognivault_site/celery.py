"""The Celery app, configured from Django settings (CELERY_*); tasks live in apps/*/tasks.py."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cognivault_site.settings")

app = Celery("cognivault_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
