"""The real thing for end-to-end tests: a Redis server, daphne and a Celery worker as separate
processes on loopback, and Debian's Chromium driven by Playwright."""

import itertools
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.postgres import database_env

ROOT = Path(__file__).resolve().parent.parent
TEACHER = ("tess", "tess-teaches-2026")
# daphne as the Procfile starts it (cognivault_site/serve.py: bodies over the upload limit
# refused at their headers); daphne's own arguments follow.
WEB_SERVER = [sys.executable, "-m", "cognivault_site.serve"]
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(check, *, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"{what} did not come up within {timeout:.0f} s")


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory) -> Iterator[str]:
    server = shutil.which("redis-server")
    assert server, "redis-server is missing: run `make setup`"
    port = free_port()
    process = subprocess.Popen(
        [
            server,
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--databases",
            "64",
            "--dir",
            str(tmp_path_factory.mktemp("redis")),
        ],
        stdout=subprocess.DEVNULL,
    )

    def answers() -> bool:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")

    wait_until(answers, timeout=20, what="redis-server")
    yield f"redis://127.0.0.1:{port}/0"
    stop(process)


def spawn(args: list, env: dict[str, str], log: Path) -> subprocess.Popen:
    with open(log, "w") as out:  # the child keeps its own copy of the descriptor
        return subprocess.Popen(args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)


# Each app gets a Redis database of its own (broker, results, channel layer), so one app's
# workers never take another's tasks; 7 is test_vault_durability's.
_databases = itertools.count(16)


def celery_workers(redis_url: str) -> list[str]:
    """Names of the Celery workers answering on a Redis database."""
    from celery import Celery

    with Celery(broker=redis_url) as client:
        return [name for reply in client.control.ping(timeout=1.0) for name in reply]


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
        with urllib.request.urlopen(self.url + path, timeout=10) as response:
            return json.load(response)


def another_web_server(app: RunningApp, port: int) -> subprocess.Popen:
    """One more daphne for `app` (same DATA_DIR, same Redis) on `port`, once it answers."""
    daphne = [*WEB_SERVER, "-b", "127.0.0.1", "-p", str(port)]
    log = app.data_dir / "logs" / f"web-{port}.log"
    env = {**app.env, "PORT": str(port)}
    process = spawn([*daphne, "cognivault_site.asgi:application"], env, log)
    url = f"http://127.0.0.1:{port}/api/v1/health"
    wait_until(lambda: urllib.request.urlopen(url, timeout=5), timeout=60, what="daphne")
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
) -> Iterator[RunningApp]:
    """daphne (and the Celery workers, for jobs and for chat answers, as `make run` starts them
    from the Procfile) on `data_dir`, migrated, with the teacher account; `model_url` points
    the app at a (fake) Ollama server, `setup` is Python run in `manage.py shell` before the
    app starts, `queues` the workers it starts, `settings_module` the settings it runs with.
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
        **database_env(),
    }
    if model_url:
        env |= {"OLLAMA_HOST": model_url, "LLM_BACKEND": "ollama", "EMBEDDING_BACKEND": "ollama"}
    app = RunningApp(f"http://127.0.0.1:{port}", env, data_dir)
    app.manage("migrate", "--noinput")
    app.manage("createsuperuser", "--noinput", "--email", "tess@example.org")
    if setup:
        app.manage("shell", "-c", setup)
    logs = data_dir / "logs"
    logs.mkdir()
    daphne = [
        *WEB_SERVER,
        "-b",
        "127.0.0.1",
        "-p",
        str(port),
        "cognivault_site.asgi:application",
    ]
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


@pytest.fixture(scope="session")
def start_app(redis_url, tmp_path_factory):
    """An app of one's own on a fresh DATA_DIR, for a module that needs its own data or model
    server: `with start_app(model_url=server.url, setup=SETUP, worker=False) as app: ...`."""

    def start(**options) -> AbstractContextManager[RunningApp]:
        return app_running(redis_url, tmp_path_factory.mktemp("data"), **options)

    return start


@pytest.fixture(scope="session")
def running_app(start_app) -> Iterator[RunningApp]:
    """daphne and a Celery worker as `make run` starts them, on a fresh DATA_DIR."""
    with start_app() as app:
        yield app


@pytest.fixture
def browser():
    """Per test, not per session: Playwright's sync API keeps an event loop running in this
    thread while it is open, which would break the asyncio tests that follow."""
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium")
    assert executable, "Debian's chromium is missing: run `make setup`"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def log_in(browser, app: RunningApp, username: str, password: str, **context_options):
    """A fresh browser context (its own cookies; `context_options` such as `timezone_id` go to
    Playwright's new_context) logged in as one person; returns its page."""
    context = browser.new_context(base_url=app.url, **context_options)
    page = context.new_page()
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    return page
