"""The app as `make run` starts it, for end-to-end tests: daphne and the Celery workers of the
Procfile as separate processes on loopback, on a DATA_DIR of its own."""

import itertools
import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.helpers.services import ROOT, celery_workers, free_port, spawn, stop, wait_until
from tests.helpers.slowness import REPLY
from tests.postgres import database_env

TEACHER = ("tess", "tess-teaches-2026")
# daphne as the Procfile starts it (cognivault_site/serve.py: what a body may be is decided at
# its headers, cognivault_site/bodies.py); daphne's own arguments follow.
WEB_SERVER = [sys.executable, "-m", "cognivault_site.serve"]

# Before an app starts: its database migrated and the teacher (DJANGO_SUPERUSER_* of its env).
PREPARE = """
from django.core.management import call_command
call_command("migrate", interactive=False, verbosity=0)
call_command("createsuperuser", interactive=False, email="tess@example.org", verbosity=0)
"""

# Each app gets a Redis database of its own (broker, results, channel layer), so one app's
# workers never take another's tasks; 7 is test_vault_durability's.
_databases = itertools.count(16)


@dataclass
class RunningApp:
    url: str
    env: dict[str, str]
    data_dir: Path

    def manage(self, *args: str) -> str:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout

    def get_json(self, path: str) -> dict:
        with urllib.request.urlopen(self.url + path, timeout=REPLY) as response:
            return json.load(response)


def class_document_seed(filename: str, passages: int) -> str:
    """Lines of a running app's setup script (`start_app(setup=...)`, after `tess` is read): a
    class document of hers, `doc`, already read, with `passages` chunks, `chunks`."""
    kind = filename.rsplit(".", 1)[-1]
    return f"""
from apps.vault.models import Chunk, Document
doc = Document.objects.create(owner=tess, filename="{filename}", format="{kind}", sha256="0" * 64,
                              stored_name="1-{filename}", status="done", scope="class")
chunks = [Chunk.objects.create(document=doc, document_sha256=doc.sha256, ordinal=i, page=i + 1,
                               text=f"Passage {{i}}: die DNA liegt im Zellkern.")
          for i in range({passages})]
"""


def another_web_server(app: RunningApp, port: int) -> subprocess.Popen:
    """One more daphne for `app` (same DATA_DIR, same Redis) on `port`, once it answers."""
    daphne = [*WEB_SERVER, "-b", "127.0.0.1", "-p", str(port)]
    log = app.data_dir / "logs" / f"web-{port}.log"
    env = {**app.env, "PORT": str(port)}
    process = spawn([*daphne, "cognivault_site.asgi:application"], env, log)
    url = f"http://127.0.0.1:{port}/api/v1/health"
    try:
        wait_until(lambda: urllib.request.urlopen(url, timeout=REPLY), timeout=60, what="daphne")
    except TimeoutError:
        stop(process)
        raise
    return process


def worker_command(queue: str, port: int) -> list:
    """A Celery worker of the Procfile's: `celery` for jobs, `chat` for answers and study
    generation (threads)."""
    command = [Path(sys.executable).parent / "celery", "-A", "cognivault_site", "worker"]
    if queue == "chat":
        return [
            *command,
            "-Q",
            "chat,study",
            "--pool=threads",
            "--concurrency=4",
            "-n",
            f"chat-{port}@%h",
        ]
    return [*command, "-Q", "celery", "--concurrency=1", "-n", f"test-{port}@%h"]


@contextmanager
def app_running(
    redis_url: str,
    data_dir: Path,
    *,
    model_url: str | None = None,
    setup: str = "",
    worker: bool = True,
    queues: tuple[str, ...] = ("celery", "chat"),
    settings_module: str = "cognivault_site.settings",
    web_processes: int = 1,
    lan: str | None = None,
) -> Iterator[RunningApp]:
    """daphne (and the Celery workers, for jobs and for chat answers, as `make run` starts them
    from the Procfile) on `data_dir`, migrated, with the teacher account; `model_url` points
    the app at a (fake) Ollama server, `setup` is Python run in `manage.py shell` before the
    app starts, `queues` the workers it starts, `settings_module` the settings it runs with,
    `web_processes` the daphnes sharing its port. `lan`, an address of this machine other than
    loopback, is served too as on a school's network: plain HTTP on the same port and HTTPS on
    the app's HTTPS_PORT with the certificate of `manage.py tls_certificate`, as the Procfile
    does; a client on this machine that connects to it comes from that address, not loopback.
    On PostgreSQL each app has a database of its own."""
    port = free_port()
    redis_url = f"{redis_url.rsplit('/', 1)[0]}/{next(_databases)}"
    env = {
        **os.environ,
        "DATA_DIR": str(data_dir),
        "REDIS_URL": redis_url,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "DJANGO_SUPERUSER_USERNAME": TEACHER[0],
        "DJANGO_SUPERUSER_PASSWORD": TEACHER[1],
        "DJANGO_SETTINGS_MODULE": settings_module,
        "WEB_PROCESSES": str(web_processes),
        **database_env(),
    }
    prepare = PREPARE
    if lan:
        https_port = free_port()
        env["HTTPS_PORT"] = str(https_port)
        prepare += 'call_command("tls_certificate")\n'
    if model_url:
        env |= {"OLLAMA_HOST": model_url, "LLM_BACKEND": "ollama", "EMBEDDING_BACKEND": "ollama"}
    app = RunningApp(f"http://127.0.0.1:{port}", env, data_dir)
    app.manage("shell", "-c", prepare + setup)  # one Django start-up for all three
    logs = data_dir / "logs"
    logs.mkdir()
    daphne = [*WEB_SERVER, "-b", "127.0.0.1", "-p", str(port)]
    if lan:
        tls = data_dir / "tls"
        daphne += ["-e", f"tcp:{port}:interface={lan}", "-e", f"ssl:{https_port}:interface={lan}"]
        daphne[-1] += f":privateKey={tls}/key.pem:certKey={tls}/cert.pem"
    daphne.append("cognivault_site.asgi:application")
    processes = [spawn(daphne, env, logs / "web.log")]
    if worker:
        for queue in queues:
            log = logs / ("worker.log" if queue == "celery" else f"{queue}.log")
            processes.append(spawn(worker_command(queue, port), env, log))
    try:
        if worker:
            names = {"celery": f"test-{port}@", "chat": f"chat-{port}@"}
            wait_until(
                lambda: all(
                    any(name.startswith(names[queue]) for name in celery_workers(redis_url))
                    for queue in queues
                ),
                timeout=90,
                what=f"the Celery workers ({', '.join(queues)})",
            )
        wait_until(lambda: app.get_json("/api/v1/health"), timeout=60, what="daphne")
        yield app
    finally:
        for process in processes:
            stop(process)
