"""What the app keeps under DATA_DIR is its account's alone (cognivault_site/data_dir.py): files
0600 and folders 0700, new ones and those an older version left readable, as every process
starts (docs/deployment.md#the-data-folder)."""

import json
import multiprocessing
import os
import stat
import subprocess
import sys
import urllib.request
import uuid
from pathlib import Path

import pytest

from apps.llm.tests.fake_ollama import FakeOllama
from cognivault_site.data_dir import keep_private
from cognivault_site.settings import read_or_create_secret_key
from tests.helpers.running_app import TEACHER
from tests.helpers.services import ROOT, wait_until
from tests.helpers.slowness import scaled
from tests.test_api_fuzzing import token_for


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_processes_starting_together_on_a_new_install_share_one_whole_key(tmp_path):
    data = tmp_path / "new-install"
    starting = multiprocessing.get_context("fork")
    together, keys = starting.Barrier(8), starting.Queue()
    processes = [starting.Process(target=_key_after, args=(data, together, keys)) for _ in range(8)]
    for process in processes:
        process.start()
    read = [keys.get(timeout=scaled(30)) for _ in processes]
    for process in processes:
        process.join()

    assert len(set(read)) == 1 and len(read[0]) >= 64
    assert [path.name for path in data.iterdir()] == ["secret_key"]  # no half-written copy left
    assert mode(data / "secret_key") == 0o600


def _key_after(data: Path, together, keys) -> None:
    together.wait()
    keys.put(read_or_create_secret_key(data))


def test_what_an_older_version_left_readable_is_made_private(tmp_path):
    data = tmp_path / "install"
    (data / "uploads" / "7").mkdir(parents=True, mode=0o755)
    (data / "uploads").chmod(0o755)
    (data / "cognivault.sqlite3").write_bytes(b"sessions")
    (data / "cognivault.sqlite3").chmod(0o644)
    (data / "uploads" / "7" / "notes.pdf").write_bytes(b"%PDF")
    (data / "uploads" / "7" / "notes.pdf").chmod(0o664)
    (data / "models").mkdir(mode=0o775)
    (data / "models").chmod(0o775)
    (data / "models" / "run.sh").write_text("#!/bin/sh\n")
    (data / "models" / "run.sh").chmod(0o755)

    keep_private(data)

    assert mode(data / "cognivault.sqlite3") == 0o600
    assert mode(data / "uploads") == mode(data / "uploads" / "7") == 0o700
    assert mode(data / "uploads" / "7" / "notes.pdf") == 0o600
    assert mode(data / "models") == 0o700
    assert mode(data / "models" / "run.sh") == 0o700  # the owner keeps what they had


def test_a_linked_file_elsewhere_is_left_as_it_is(tmp_path):
    shared = tmp_path / "shared-model.bin"
    shared.write_bytes(b"weights")
    shared.chmod(0o644)
    data = tmp_path / "install"
    data.mkdir()
    (data / "model.bin").symlink_to(shared)

    keep_private(data)

    assert mode(shared) == 0o644


def test_a_process_that_loads_the_settings_creates_private_files(tmp_path):
    data = tmp_path / "install"
    script = (
        "import django; django.setup(); from django.conf import settings; "
        "(settings.DATA_DIR / 'uploads').mkdir(); "
        "(settings.DATA_DIR / 'uploads' / 'a.txt').write_text('x')"
    )
    env = {
        **os.environ,
        "DATA_DIR": str(data),
        "DJANGO_SETTINGS_MODULE": "cognivault_site.settings",
    }
    env.pop("SECRET_KEY", None)

    subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, check=True, umask=0o022)

    assert mode(data) == mode(data / "uploads") == 0o700
    assert mode(data / "secret_key") == mode(data / "uploads" / "a.txt") == 0o600


def upload(app, token: str, name: str, text: bytes) -> dict:
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            "Content-Type: text/plain\r\n\r\n"
        ).encode()
        + text
        + f"\r\n--{boundary}--\r\n".encode()
    )
    request = urllib.request.Request(
        app.url + "/api/v1/vault/documents",
        data=body,
        headers={
            "Content-Type": f"multipart/form-data; boundary={boundary}",
            "Authorization": f"Bearer {token}",
        },
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


def call(app, token: str, path: str, payload: dict | None = None) -> dict:
    request = urllib.request.Request(
        app.url + path,
        data=None if payload is None else json.dumps(payload).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


@pytest.mark.services
def test_a_fresh_install_keeps_every_file_private(start_app):
    with (
        FakeOllama() as model,
        start_app(model_url=model.url, queues=("celery",)) as app,
    ):
        token = token_for(app, *TEACHER)
        document = upload(app, token, "cells.txt", b"Mitochondria make ATP for the cell.\n" * 50)
        run = call(app, token, "/api/v1/vault/ingest", {"document_ids": [document["id"]]})
        wait_until(
            lambda: call(app, token, f"/api/v1/vault/ingest/{run['run_id']}")["status"] == "done",
            timeout=120,
            what="the document's ingestion",
        )
        app.manage("tls_certificate")

        data = app.data_dir
        written = {
            path.relative_to(data).parts[0]
            for path in data.rglob("*")
            if path.relative_to(data).parts[0] != "logs"  # the test's own, beside the app's
        }
        database = set() if "DATABASE_URL" in app.env else {"cognivault.sqlite3"}
        assert {*database, "secret_key", "uploads", "index", "tls"} <= written
        for path in [data, *data.rglob("*")]:
            if path.relative_to(data).parts[:1] == ("logs",):
                continue
            expected = 0o700 if path.is_dir() else 0o600
            assert mode(path) == expected, f"{path.relative_to(data)} is {oct(mode(path))}"
