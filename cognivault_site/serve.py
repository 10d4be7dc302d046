"""The web server's command: `python -m cognivault_site.serve -b 0.0.0.0 -p 8000
cognivault_site.asgi:application`, daphne's own arguments, runs one daphne (webserver.py).

With WEB_PROCESSES above 1 it starts that many on the same ports instead and waits for them
(docs/deployment.md#more-than-one-web-process). It forks them once it has imported every view
and compiled every template, so they share those pages of memory with it instead of each
loading a copy of its own (docs/benchmarks.md#a-million-passages).
"""

import gc
import os
import signal
import sys

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cognivault_site.settings")
# Before the web server's modules: deciding a body looks up sessions and tokens (bodies.py).
django.setup(set_prefix=False)

from django.conf import settings  # noqa: E402
from django.db import connections  # noqa: E402

from cognivault_site import asgi, warmup  # noqa: E402, F401 -- the application the children serve


def serve(*, shared_ports: bool) -> None:
    # Imported by the process that serves, never before a fork: see webserver.py.
    from cognivault_site import webserver

    webserver.run(shared_ports=shared_ports)


def fork_web_process() -> int:
    """A daphne in a child of this process; returns its pid. The child leaves by exiting (an
    exception included), never back into the launcher."""
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the launcher's handlers, not the child's
        signal.signal(signal.SIGINT, signal.default_int_handler)
        serve(shared_ports=True)
        sys.exit(0)
    return pid


def load_for_children() -> None:
    """What the daphnes forked from this process share with it: every view (with the
    application imported above) and every template. Nothing a child must not share is open."""
    warmup.load_pages()
    connections.close_all()  # none is open; a child must never share one with its parent
    # What the children inherit stays out of their collectors' way: a collection would write
    # to every object it looks at, and so copy the page holding it into the child.
    gc.freeze()


def launch(count: int) -> int:
    """`count` daphnes with this process's arguments on the same ports. SIGTERM and SIGINT are
    passed on; when one daphne ends by itself the others are stopped too, loudly: nothing
    restarts one alone (honcho restarts nothing), and the launcher's exit says it."""
    load_for_children()
    children: set[int] = set()
    stopping = False

    def stop(signum=signal.SIGTERM, frame=None) -> None:
        nonlocal stopping
        stopping = True
        for pid in children:
            os.kill(pid, signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for _ in range(count):
        children.add(fork_web_process())
    if stopping:  # a signal came while they started
        stop()
    pid, status = os.wait()
    code = os.waitstatus_to_exitcode(status)
    children.remove(pid)
    if not stopping:
        print(f"Web process {pid} ended ({code}): stopping the others.", file=sys.stderr)
        stop()
    codes = [code, *(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children)]
    return 0 if stopping and not any(codes) else 1


def main() -> None:
    if settings.WEB_PROCESSES > 1:
        sys.exit(launch(settings.WEB_PROCESSES))
    serve(shared_ports=False)


if __name__ == "__main__":
    main()
