"""The reading sandbox: `run_isolated` reads an untrusted file in a child process under a time
and a memory limit, so that no file can hang or exhaust a worker or the web server. The child
gets the file already open and an emptied environment, and locks itself in before it reads it
(`confine`: no network, a file system of its code and its scratch folder, not root)."""

import contextlib
import importlib
import json
import logging
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

from apps.vault.readers.common import ExtractionError, Progress, noop, short
from apps.vault.readers.confine import NOBODY, PROJECT_ROOT, confine, die_with_parent
from apps.vault.readers.formats import extract

log = logging.getLogger(__name__)
# Reading a file (OCR above all) is background work: it takes the CPU pages and answers leave.
NICENESS = 10
# All the child's environment: no secret of the worker's (SECRET_KEY, database and Redis URLs).
PASSED = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TESSDATA_PREFIX")
reported: set[str] = set()  # what the sandbox could not do here, logged once per process


@contextlib.contextmanager
def scratch_folder() -> Iterator[Path]:
    """The child's `work` folder, the one it may write in (a copy of the file, OCR images),
    beside `root`, where it builds the root of its view; given to `nobody` when we are root,
    and deleted with all it holds afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="cognivault-read-"))
    try:
        for name in ("work", "root"):
            (folder / name).mkdir()
        if os.geteuid() == 0:
            for path in (folder, folder / "work"):
                os.chown(path, NOBODY, NOBODY)
        yield folder / "work"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def child_environment(work: Path) -> dict[str, str]:
    kept = {name: os.environ[name] for name in PASSED if name in os.environ}
    home = {"HOME": str(work), "TMPDIR": str(work)}
    return {"PATH": os.defpath, **kept, "OMP_THREAD_LIMIT": "1", **home}


def start_child(
    path: Path, fmt: str, work: Path, *, timeout: float, memory_mb: int, options: dict
) -> subprocess.Popen:
    limit = memory_mb * 1024 * 1024

    def limit_child() -> None:
        die_with_parent()
        os.nice(NICENESS)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        # A backstop for an orphan whose worker was killed before its timer could fire.
        cpu = int(timeout) + 30
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))

    with path.open("rb") as source:  # its standard input: the child never needs the file's name
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "apps.vault.readers",
                fmt,
                str(work),
                path.name,
                json.dumps(options),
            ],
            cwd=PROJECT_ROOT,
            env=child_environment(work),
            stdin=source,
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
        elif "gaps" in message:
            for gap in set(message["gaps"]) - reported:
                reported.add(gap)
                log.warning("The reading sandbox is incomplete here: %s", gap)
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
    options: dict | None = None,
) -> dict:
    """`extract` (with the reader's `options`) in a child process that is killed after `timeout`
    seconds and may not use more than `memory_mb` of address space. Units come back as dicts.
    Raises ExtractionError, whose text calls the file `name` (as its owner knows it) where a
    reader quoted the path it read."""
    with scratch_folder() as work:
        process = start_child(
            path, fmt, work, timeout=timeout, memory_mb=memory_mb, options=options or {}
        )
        result, error, timed_out = wait_for(process, timeout, on_progress)
    if timed_out and result is None and error is None:
        raise ExtractionError(f"Reading this file took longer than {timeout:g} s and was stopped.")
    if error is not None:
        raise ExtractionError(error.replace(str(work / path.name), name or path.name))
    if result is None:
        raise ExtractionError(
            "The file could not be read: the reader stopped unexpectedly "
            f"(exit code {process.returncode}); it may be too large or malformed."
        )
    return result


def wait_for(
    process: subprocess.Popen, timeout: float, on_progress: Progress
) -> tuple[dict | None, str | None, bool]:
    """The child's (result, error) once it ended, killed with its Tesseract after `timeout`
    seconds, and whether it was."""
    timed_out = threading.Event()

    def kill() -> None:
        timed_out.set()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)

    timer = threading.Timer(timeout, kill)
    timer.start()
    try:
        result, error = read_messages(process, on_progress)
    finally:
        timer.cancel()
        if process.poll() is None:
            kill()
            process.wait()
    return result, error, timed_out.is_set()


def main(fmt: str, work: str, name: str, options: str) -> int:
    """The child (`python -m apps.vault.readers FORMAT WORK NAME OPTIONS`), its file on standard
    input: JSON lines on stdout, progress events, then one result or one error."""
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

    gaps = confine(Path(work))
    if gaps:
        emit({"gaps": gaps})
    try:
        result = read(copy_input(Path(work) / name), fmt, progress, json.loads(options))
    except ExtractionError as error:
        emit({"error": str(error)})
        return 0
    except MemoryError:
        emit({"error": "The file needs more memory to read than a worker may use."})
        return 0
    except Exception as error:  # a parser bug must still end as a readable failure
        emit({"error": f"The file could not be read ({type(error).__name__}: {short(error)})."})
        return 0
    result["units"] = [asdict(unit) for unit in result["units"]]
    emit({"result": result})
    return 0


def copy_input(path: Path) -> Path:
    """The file on standard input, copied into the working folder: the readers open paths, and
    the one it came from is out of sight."""
    with open(0, "rb") as source, path.open("wb") as copy:
        shutil.copyfileobj(source, copy, 1 << 20)
    return path


def read(path: Path, fmt: str, progress: Progress, options: dict) -> dict:
    if ":" in fmt:  # a reader of the caller's own, by its module (a question bank, a deck)
        module, function = fmt.split(":")
        return getattr(importlib.import_module(module), function)(path, progress, **options)
    return extract(path, fmt, progress, **options)
