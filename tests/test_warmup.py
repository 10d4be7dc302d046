"""A web process prepares what pages need as soon as it listens (cognivault_site/warmup.py), so
that a class's first logins and pages do not pay for it."""

import gc

from django.template import engines
from django.template.base import Template

from cognivault_site.warmup import page_templates, warm_up
from tests.helpers.fresh_python import printed


def test_after_warming_up_no_page_template_is_compiled_again(monkeypatch):
    engine = engines["django"]
    engine.engine.template_loaders[0].reset()  # as in a process that never rendered a page
    try:
        warm_up()
    finally:
        gc.unfreeze()  # this test process's objects stay collectable
    compiled = []
    compile_nodelist = Template.compile_nodelist
    monkeypatch.setattr(
        Template, "compile_nodelist", lambda self: compiled.append(self) or compile_nodelist(self)
    )

    names = page_templates()
    for name in names:
        engine.get_template(name)

    assert "base.html" in names and "chat/thread.html" in names and len(names) >= 40
    assert compiled == []


# A fresh interpreter, as a web process starts: Django set up, no request served yet.
FRESH_PROCESS = """
import gc, sys, django
django.setup()
from django.urls import get_resolver
from cognivault_site.celery import app
from cognivault_site.warmup import warm_up
before = "apps.study.mindmaps.views" in sys.modules, app.finalized
warm_up()
imported = "apps.study.mindmaps.views" in sys.modules
queuing = app.finalized, "celery.backends.redis" in sys.modules
print(*before, imported, get_resolver()._populated, *queuing, gc.get_freeze_count() > 0)
"""


def test_warming_up_builds_the_url_table_and_what_queuing_a_task_needs_then_freezes_it(tmp_path):
    # The URL table imports every view; Celery's app is finalized and its result backend made
    # before a question is queued. Frozen: the garbage collector's full collections no longer
    # walk the process's long-lived objects.
    assert printed(FRESH_PROCESS, tmp_path) == ["False"] * 2 + ["True"] * 5


# The web launcher as it is about to fork its daphnes (cognivault_site/serve.py).
BEFORE_THE_FORK = """
import os, sys, threading
from cognivault_site import serve
serve.load_for_children()
held = []
for fd in os.listdir("/proc/self/fd"):
    try:
        held.append(os.readlink(f"/proc/self/fd/{fd}"))
    except FileNotFoundError:  # the folder's own, closed once read
        pass
print(threading.active_count(), "twisted.internet.reactor" in sys.modules,
      any("socket" in fd or "eventpoll" in fd for fd in held))
"""


def test_the_web_launcher_forks_no_thread_socket_or_event_loop_its_children_would_share(tmp_path):
    """A child shares what its parent holds open: an event loop (Twisted's, made when daphne is
    imported) or a connection would then serve two processes at once."""
    assert printed(BEFORE_THE_FORK, tmp_path) == ["1", "False", "False"]
