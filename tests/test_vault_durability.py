"""`kill -9` in the middle of an ingestion, with a real Redis and a real Celery worker process
(and a slow fake Ollama on loopback). After the restart the run continues at its first
unfinished step: no lost document, no duplicate chunk, no finished batch embedded twice."""

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from apps.llm.tests.fake_ollama import FakeOllama
from tests.helpers.services import ROOT, wait_until
from tests.helpers.slowness import scaled
from tests.postgres import database_env

pytestmark = pytest.mark.services

SETUP = """
from pathlib import Path
from apps.accounts.models import User
from apps.vault import ingestion, uploads
from apps.vault.tests import files
alice = User.objects.create_user("alice", password="x")
rows = "\\n".join(f"Species {n},habitat {n % 7},{n}" for n in range(1, 801))
uploads.store(alice, "arten.csv", [("species,habitat,count\\n" + rows).encode()])
uploads.store(alice, "notes.md", [b"# Cells\\n\\nMitochondria make ATP for the whole cell."])
scan = files.scanned_book(Path("{folder}") / "scan.pdf", pages=12)
uploads.store(alice, "scan.pdf", [scan.read_bytes()])
ingestion.start_run(alice)
"""


@pytest.fixture
def slow_model():
    """A fake Ollama that only embeds, slowly, and remembers every text it was sent."""
    with FakeOllama() as model:
        model.models = ["embeddinggemma:latest"]
        model.embed_delay = 0.4
        yield model


def start_worker(env: dict, log: Path) -> subprocess.Popen:
    celery = Path(sys.executable).parent / "celery"
    with open(log, "a") as out:
        return subprocess.Popen(
            [
                celery,
                "-A",
                "cognivault_site",
                "worker",
                "--concurrency=1",
                "--without-gossip",
                "--without-mingle",
                "--loglevel=INFO",
                "-n",
                "vault-durability@%h",
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def rows(env: dict, sql: str) -> list[tuple]:
    """The rows of `sql` in the worker's database: PostgreSQL's, or SQLite's file in DATA_DIR."""
    if "DATABASE_URL" in env:
        with psycopg.connect(env["DATABASE_URL"]) as connection:
            return connection.execute(sql).fetchall()
    with sqlite3.connect(
        Path(env["DATA_DIR"]) / "cognivault.sqlite3", timeout=scaled(20)
    ) as connection:
        return connection.execute(sql).fetchall()


@pytest.mark.parametrize("moment", ["extract", "embed"])
def test_a_worker_killed_mid_ingestion_resumes_without_losing_or_repeating_work(
    redis_url, tmp_path, moment, slow_model
):
    data_dir = tmp_path / "data"
    env = {
        **os.environ,
        "DATA_DIR": str(data_dir),
        # A Redis database of its own, so the session's app worker never takes these tasks.
        "REDIS_URL": redis_url.rsplit("/", 1)[0] + "/7",
        "LLM_BACKEND": "ollama",
        "EMBEDDING_BACKEND": "ollama",
        "OLLAMA_HOST": slow_model.url,
        "DJANGO_SETTINGS_MODULE": "cognivault_site.settings",
        **database_env(),
    }
    manage = [sys.executable, "manage.py"]
    subprocess.run(
        [*manage, "migrate", "--noinput"], cwd=ROOT, env=env, check=True, capture_output=True
    )
    subprocess.run(
        [*manage, "shell", "-c", SETUP.replace("{folder}", str(tmp_path))],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    log = tmp_path / "worker.log"

    def step(name: str) -> tuple[str, int, str]:
        sql = f"SELECT status, done, detail FROM vault_ingeststep WHERE name='{name}'"
        return rows(env, sql)[0]

    def reached() -> bool:
        if moment == "extract":  # the OCR of the scanned PDF, the third file, is under way
            status, done, detail = step("extract")
            return status == "running" and done >= 2 and "page" in detail
        return step("embed")[1] >= 3  # three batches embedded

    worker = start_worker(env, log)
    try:
        wait_until(reached, timeout=90, what=f"the {moment} step")
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()

    chunks_at_kill = rows(env, "SELECT id, text, embedding IS NOT NULL FROM vault_chunk")
    finished = {text for _, text, embedded in chunks_at_kill if embedded}
    sent_before_restart = len(slow_model.embedded_texts())
    steps = dict(rows(env, "SELECT name, status FROM vault_ingeststep"))
    if moment == "extract":
        assert [steps[name] for name in ("scan", "extract")] == ["done", "running"]
        assert chunks_at_kill == []
    else:
        assert [steps[name] for name in ("scan", "extract", "chunk")] == ["done"] * 3
        assert steps["embed"] == "running" and steps["index"] == "waiting"
        assert len(finished) >= 15 and len(finished) < len(chunks_at_kill)

    worker = start_worker(env, log)
    try:
        wait_until(
            lambda: rows(env, "SELECT status FROM vault_ingestrun")[0][0] in ("done", "failed"),
            timeout=90,
            what="the resumed run",
        )
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=scaled(30))

    assert rows(env, "SELECT status, error FROM vault_ingestrun") == [("done", "")]
    assert rows(env, "SELECT filename, status FROM vault_document ORDER BY filename") == [
        ("arten.csv", "done"),
        ("notes.md", "done"),
        ("scan.pdf", "done"),
    ]
    chunks = rows(env, "SELECT id, text, embedding IS NOT NULL FROM vault_chunk")
    if moment == "embed":  # the same chunks as before the kill: not cut again
        assert {c[0] for c in chunks} == {c[0] for c in chunks_at_kill}
    # None twice, all embedded.
    assert len({text for _, text, _ in chunks}) == len(chunks)
    assert all(embedded for _, _, embedded in chunks)
    # No finished batch went to the model again; everything else went at least once.
    sent_after = slow_model.embedded_texts()[sent_before_restart:]
    assert not finished & set(sent_after)
    assert {text for _, text, _ in chunks} <= set(slow_model.embedded_texts())
    assert "Resuming ingestion run" in log.read_text()
