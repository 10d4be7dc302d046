"""What a web process prepares as soon as it listens, so that no student's request pays for it:
the URL table (which imports every view, the API and their libraries), every page template
compiled, the model gateway's backend (the chat page names it) and what Celery builds for the
first task it queues; then what all that made is put out of the garbage collector's way.

A fresh daphne paid for these on its first requests: about 0.3 s for the URL table, 0.1 s for
the Ollama client, 10–30 ms for a page's templates, about 20 ms for queuing the first question's
answer. When a class logs in at once, those first requests are the class's first login cards and
pages, which then took half a second (docs/benchmarks.md#a-school-on-one-server).
"""

import gc
import logging
import time
from pathlib import Path

from django.conf import settings
from django.template import engines
from django.urls import get_resolver, reverse

from apps.llm import gateway
from cognivault_site.celery import app as celery_app

log = logging.getLogger(__name__)


def page_templates() -> list[str]:
    """The names of the templates under the project's template folder."""
    folder = Path(settings.BASE_DIR) / "templates"
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*.html"))


def load_pages() -> None:
    """Every view imported and every page template compiled: what a web process forked from
    this one shares with it (serve.py)."""
    get_resolver().url_patterns  # noqa: B018 -- reading it imports every URL module
    reverse("home")  # and the first reverse builds the table every link is looked up in
    engine = engines["django"]
    for name in page_templates():
        engine.get_template(name)  # the cached loader keeps it compiled


def warm_up() -> None:
    began = time.monotonic()
    load_pages()  # nothing left to do when the process was forked after it
    gateway.current_backend()
    gateway.speech_available()
    # Queuing the first task (a question's answer, a document's reading) binds every task to the
    # app and makes the result backend, which reads every installed package's entry points.
    celery_app.finalize(auto=True)
    celery_app.backend  # noqa: B018
    # What exists now (modules, the URL table, compiled templates) lives as long as the process.
    # Frozen, a full collection looks only at what requests made since: 7–25 ms instead of
    # 120–220 ms, during which every request of the process stood still, a few times a minute
    # under a school's pages (docs/benchmarks.md#a-school-on-one-server).
    gc.freeze()
    log.info("Web process ready for pages in %.1f s", time.monotonic() - began)
