"""The reading sandbox holds a reader that a hostile file has taken over (hostile_reader.py):
it cannot read the secret key, reach a server on 127.0.0.1 or find the worker's secrets in its
environment, while real files still read. As the suite runs (root, here and in CI) the child
becomes `nobody` in namespaces of its own; a worker that is not root gets the same walls in a
user namespace; where the kernel refuses namespaces, the child still drops sockets, and root
unless nobody could not run its Python, and the gap is logged. Those run from a harness process
(sandbox_harness.py). And the child runs below the worker's CPU priority."""

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from apps.vault.readers import run_isolated
from apps.vault.readers.confine import NOBODY, PROJECT_ROOT
from apps.vault.readers.sandbox import NICENESS, scratch_folder, start_child
from apps.vault.tests import files

SNOOP = "apps.vault.tests.hostile_reader:snoop"
# All the child may find in its environment (apps/vault/readers/sandbox.py).
ENVIRONMENT = {"PATH", "LANG", "LC_ALL", "LC_CTYPE", "TESSDATA_PREFIX", "OMP_THREAD_LIMIT"}
ENVIRONMENT |= {"HOME", "TMPDIR"}


@pytest.fixture
def data_dir(settings, monkeypatch) -> Path:
    """DATA_DIR with a secret key anyone could read by its mode, and the worker's secrets in its
    environment: what hides them is the sandbox, not a file's permissions."""
    folder = settings.DATA_DIR
    (folder / "secret_key").write_text("the-key-that-signs-every-card")
    (folder / "secret_key").chmod(0o644)
    monkeypatch.setenv("SECRET_KEY", "the-key-from-the-environment")
    monkeypatch.setenv("DATABASE_URL", "postgres://cognivault:password@db/cognivault")
    return folder


@pytest.fixture
def listening() -> int:
    """A server on 127.0.0.1 (Redis, the database, the model server are there): its port."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]


def notes(data_dir: Path) -> Path:
    path = data_dir / "notes.txt"
    path.write_text("Mitochondria make ATP.")
    return path


def assert_held(seen: dict) -> None:
    assert seen["secret"] in ("FileNotFoundError", "PermissionError")
    assert seen["connected"] == "PermissionError"  # socket() refused before any connection
    assert set(seen["environ"]) <= ENVIRONMENT
    assert not any("the-key" in value or "password" in value for value in seen["environ"].values())
    assert seen["file"] == "Mitochondria make ATP."


def namespaces_allowed() -> bool:
    flags = "0x40020000" if os.geteuid() == 0 else "0x50020000"  # (user,) mount and network
    code = f"import ctypes; assert ctypes.CDLL(None).unshare({flags}) == 0"
    return subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0


needs_namespaces = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not namespaces_allowed(),
    reason="this kernel refuses namespaces here (the gap is covered by the no-namespaces test)",
)


@needs_namespaces
def test_a_hostile_reader_finds_nothing_to_steal_and_nowhere_to_send_it(data_dir, listening):
    options = {"secret": str(data_dir / "secret_key"), "port": listening}
    seen = run_isolated(notes(data_dir), SNOOP, timeout=60, memory_mb=1024, options=options)["seen"]

    assert_held(seen)
    assert seen["secret"] == "FileNotFoundError"  # DATA_DIR is not in its view at all
    assert seen["uid"] == (NOBODY if os.geteuid() == 0 else os.geteuid())


@needs_namespaces
def test_its_network_namespace_alone_keeps_it_off_127_0_0_1(listening):
    code = (
        "import os, socket; from apps.vault.readers.confine import enter_namespaces;"
        "enter_namespaces(os.geteuid() == 0);"
        f"socket.create_connection(('127.0.0.1', {listening}), timeout=5)"
    )
    refused = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True
    )
    assert refused.returncode != 0 and "Network is unreachable" in refused.stderr


def test_its_seccomp_filter_alone_refuses_every_socket_but_a_unix_one():
    code = (
        "import socket; from apps.vault.readers.confine import refuse_sockets; refuse_sockets();"
        "socket.socketpair(socket.AF_UNIX); print('unix ok');"
        "socket.socket(socket.AF_INET6)"
    )
    refused = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True
    )
    assert refused.stdout == "unix ok\n"
    assert "PermissionError" in refused.stderr


@needs_namespaces
def test_real_files_still_read_in_the_sandbox(tmp_path):
    pdf = run_isolated(files.text_pdf(tmp_path / "bio.pdf"), "pdf", timeout=60, memory_mb=2048)
    word = run_isolated(files.docx_file(tmp_path / "z.docx"), "docx", timeout=60, memory_mb=2048)
    scan = files.scanned_page_pdf(tmp_path / "scan.pdf", text_pages=0)
    ocr = run_isolated(scan, "pdf", timeout=120, memory_mb=2048)

    assert pdf["pages"] == 3 and "Photosynthese" in pdf["units"][0]["text"]
    assert any("Ribosom" in unit["text"] for unit in word["units"])
    assert ocr["ocr_pages"] == 1 and "Mitochondrien" in ocr["units"][0]["text"]


def harness(modes: str, jobs: list) -> tuple[dict, str]:
    done = subprocess.run(
        [sys.executable, "-m", "apps.vault.tests.sandbox_harness", modes, json.dumps(jobs)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    if "refused" in answer:
        pytest.skip(f"the kernel refuses the harness's user namespace ({answer['refused']})")
    return answer, done.stderr


root_only = pytest.mark.skipif(os.geteuid() != 0, reason="the harness starts as root")


@root_only
@needs_namespaces
def test_a_worker_that_is_not_root_gets_the_same_walls_in_a_user_namespace(
    data_dir, listening, tmp_path
):
    options = {"secret": str(data_dir / "secret_key"), "port": listening}
    scan = files.scanned_page_pdf(tmp_path / "scan.pdf", text_pages=1)
    answer, log = harness(
        "non-root", [[str(notes(data_dir)), SNOOP, options], [str(scan), "pdf", {}]]
    )

    seen, ocr = (result.get("seen", result) for result in answer["results"])
    assert answer["uid"] == 1000 and seen["uid"] == 1000  # it has no other uid to go to
    assert_held(seen)
    assert seen["secret"] == "FileNotFoundError"
    assert ocr["ocr_pages"] == 1 and "Mitochondrien" in ocr["units"][1]["text"]
    assert "incomplete" not in log


@root_only
def test_without_namespaces_a_non_root_child_is_kept_off_the_network_and_the_gap_is_logged(
    data_dir, listening
):
    options = {"secret": str(data_dir / "secret_key"), "port": listening}
    answer, log = harness("non-root,no-namespaces", [[str(notes(data_dir)), SNOOP, options]])

    (result,) = answer["results"]
    seen = result["seen"]
    assert seen["connected"] == "PermissionError"
    assert set(seen["environ"]) <= ENVIRONMENT
    # The gap: its files are its user's, the secret key among them unless its mode forbids it.
    assert seen["secret"] == "the-key-that-signs-every-card"
    assert "The reading sandbox is incomplete here: no network or file system of its own" in log


def nobody_runs_python() -> bool:
    try:
        return subprocess.run([sys.executable, "-c", ""], user=NOBODY).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@root_only
@pytest.mark.skipif(
    os.geteuid() != 0 or not nobody_runs_python(),
    reason="nobody cannot start this Python (it lives in a private folder, as under /root here)",
)
def test_without_namespaces_a_root_worker_s_child_still_becomes_nobody(data_dir, listening):
    (data_dir / "secret_key").chmod(0o600)  # as settings.py writes it
    options = {"secret": str(data_dir / "secret_key"), "port": listening}
    answer, log = harness("no-namespaces", [[str(notes(data_dir)), SNOOP, options]])

    seen = answer["results"][0]["seen"]
    assert seen["uid"] == NOBODY
    assert_held(seen)
    assert seen["secret"] == "PermissionError"
    assert "incomplete" in log


@root_only
@pytest.mark.skipif(
    os.geteuid() != 0 or nobody_runs_python(),
    reason="nobody can start this Python: the test above plays this machine",
)
def test_without_namespaces_a_root_worker_s_child_that_nobody_could_not_run_reads_as_root(
    data_dir, listening, tmp_path
):
    """Python in a folder only root may enter (under /root): as nobody, the child could import
    nothing more and no file would read, so it keeps root, off the network, and says so."""
    options = {"secret": str(data_dir / "secret_key"), "port": listening}
    pdf = str(files.text_pdf(tmp_path / "bio.pdf"))
    answer, log = harness(
        "no-namespaces", [[str(notes(data_dir)), SNOOP, options], [pdf, "pdf", {}]]
    )

    seen, read = answer["results"][0]["seen"], answer["results"][1]
    assert seen["uid"] == 0 and seen["connected"] == "PermissionError"
    assert set(seen["environ"]) <= ENVIRONMENT
    assert read["pages"] == 3 and "Photosynthese" in read["units"][0]["text"]
    assert "The reading sandbox is incomplete here: not nobody: nobody may not enter" in log


def test_the_reading_child_runs_below_the_workers_priority(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("Mitochondria make ATP.")
    with scratch_folder() as work:
        child = start_child(path, "txt", work, timeout=10, memory_mb=300, options={})
        try:
            assert psutil.Process(child.pid).nice() == min(os.nice(0) + NICENESS, 19)
        finally:
            child.communicate()
