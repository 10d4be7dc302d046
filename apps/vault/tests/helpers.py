"""Files into the vault as a student uploads them, ingested by the real Celery task in this
process, and a loopback URL nothing answers on."""

import socket

from apps.vault import ingestion, tasks
from apps.vault.ingest_steps import STEPS
from apps.vault.models import IngestRun
from apps.vault.uploads import store


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


def upload(owner, path, **options):
    with open(path, "rb") as handle:
        return store(owner, path.name, iter(lambda: handle.read(65536), b""), **options).document


def ingest(owner, document_ids=None, *, django_capture_on_commit_callbacks) -> IngestRun:
    """Start a run and carry each step through the real Celery task, in this process."""
    with django_capture_on_commit_callbacks(execute=False):
        run = ingestion.start_run(owner, document_ids)
    return drive(run)


def drive(run: IngestRun) -> IngestRun:
    for name in STEPS:
        tasks.ingest_step.apply(args=(run.pk, name, run.attempt))
        run.refresh_from_db()
        if run.finished:
            break
    return run
