"""The reading sandbox: `run_isolated` reads an untrusted file in a child process under a time
and a memory limit, so that no file can hang or exhaust a worker or the web server."""

import contextlib
import ctypes
import ctypes.util
import importlib
import json
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from apps.vault.readers.common import ExtractionError, Progress, noop, short
from apps.vault.readers.formats import extract

PROJECT_ROOT = Path(__file__).resolve().parents[3]
# Reading a file (OCR above all) is background work: it takes the CPU pages and answers leave.
NICENESS = 10


def die_with_parent() -> None:
    """Linux: the child gets SIGKILL when the worker that started it dies (even by kill -9)."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def start_child(path: Path, fmt: str, *, timeout: float, memory_mb: int) -> subprocess.Popen:
    limit = memory_mb * 1024 * 1024

    def limit_child() -> None:
        die_with_parent()
        os.nice(NICENESS)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        # A backstop for an orphan whose worker was killed before its timer could fire.
        cpu = int(timeout) + 30
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))

    return subprocess.Popen(
        [sys.executable, "-m", "apps.vault.readers", fmt, str(path)],
        cwd=PROJECT_ROOT,
        env={**os.environ, "OMP_THREAD_LIMIT": "1"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=limit_child,  # noqa: PLW1509 - no threads touch the fork window here
        start_new_session=True,  # so Tesseract dies with it
    )


def read_messages(
    process: subprocess.Popen, on_progress: Progress
) -> tuple[dict | None, str | None]:
    """The child's lines until it exits: its progress goes to `on_progress`; (result, error)."""
    result: dict | None = None
    error: str | None = None
    for line in process.stdout:
        message = json.loads(line)
        if "progress" in message:
            on_progress(message["progress"])
        elif "result" in message:
            result = message["result"]
        elif "error" in message:
            error = message["error"]
    process.wait()
    return result, error


def run_isolated(
    path: Path,
    fmt: str,
    *,
    timeout: float,
    memory_mb: int,
    on_progress: Progress = noop,
    name: str = "",
) -> dict:
    """`extract` in a child process that is killed after `timeout` seconds and may not use more
    than `memory_mb` of address space. Units come back as dicts. Raises ExtractionError, whose
    text calls the file `name` (as its owner knows it) where a reader quoted the stored path."""
    process = start_child(path, fmt, timeout=timeout, memory_mb=memory_mb)
    timed_out = threading.Event()

    def kill() -> None:
        timed_out.set()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)

    timer = threading.Timer(timeout, kill)
    timer.start()
    result: dict | None = None
    error: str | None = None
    try:
        result, error = read_messages(process, on_progress)
    finally:
        timer.cancel()
        if process.poll() is None:
            kill()
            process.wait()
    if timed_out.is_set() and result is None and error is None:
        raise ExtractionError(f"Reading this file took longer than {timeout:g} s and was stopped.")
    if error is not None:
        raise ExtractionError(error.replace(str(path), name or path.name))
    if result is None:
        raise ExtractionError(
            "The file could not be read: the reader stopped unexpectedly "
            f"(exit code {process.returncode}); it may be too large or malformed."
        )
    return result


def main(fmt: str, path: str) -> int:
    """The child (`python -m apps.vault.readers FORMAT PATH`): JSON lines on stdout, progress
    events, then one result or one error."""
    # Libraries may print to stdout; the protocol gets its own copy of it, they get stderr.
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    last = 0.0

    def emit(message: dict) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    def progress(event: dict) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= 0.2:
            last = now
            emit({"progress": event})

    try:
        result = read(Path(path), fmt, progress)
    except ExtractionError as error:
        emit({"error": str(error)})
        return 0
    except MemoryError:
        emit({"error": "The file needs more memory to read than a worker may use."})
        return 0
    except Exception as error:  # a parser bug must still end as a readable failure
        emit({"error": f"The file could not be read ({type(error).__name__}: {short(error)})."})
        return 0
    result["units"] = [unit.as_dict() for unit in result["units"]]
    emit({"result": result})
    return 0


def read(path: Path, fmt: str, progress: Progress) -> dict:
    if ":" in fmt:  # a reader of the caller's own, by its module (a question bank, a deck)
        module, function = fmt.split(":")
        return getattr(importlib.import_module(module), function)(path, progress)
    return extract(path, fmt, progress)
