"""Processes the end-to-end tests start on loopback: a free port, waiting for a server to
answer, stopping it, a Redis server of the test session's own, and the Celery workers that
answer on a Redis database."""

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.helpers.slowness import REPLY, scaled

ROOT = Path(__file__).resolve().parent.parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(check, *, timeout: float, what: str) -> None:
    """Until `check()` is true (an OSError counts as not yet); `timeout` seconds on an idle
    machine, scaled by the machine's slowness, end a run that is broken."""
    timeout = scaled(timeout)
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


def spawn(args: list, env: dict[str, str], log: Path) -> subprocess.Popen:
    with open(log, "w") as out:  # the child keeps its own copy of the descriptor
        return subprocess.Popen(args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)


@contextmanager
def redis_server(directory: Path) -> Iterator[str]:
    """A redis-server on a free loopback port, keeping nothing on disk; its URL once it
    answers."""
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
            str(directory),
        ],
        stdout=subprocess.DEVNULL,
    )

    def answers() -> bool:
        with socket.create_connection(("127.0.0.1", port), timeout=REPLY) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")

    try:
        wait_until(answers, timeout=20, what="redis-server")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop(process)


def celery_workers(redis_url: str) -> list[str]:
    """Names of the Celery workers answering on a Redis database (those that answer within a
    second, scaled: a worker busy starting up is asked again)."""
    from celery import Celery

    with Celery(broker=redis_url) as client:
        return [name for reply in client.control.ping(timeout=scaled(1)) for name in reply]
