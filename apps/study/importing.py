"""Reading a file from another tool (a question bank, an Anki package) in the reading sandbox:
a child process under a time and a memory limit, which hands back plain values or the reason
the file cannot be taken (apps/vault/readers/sandbox.py)."""

import tempfile
from pathlib import Path

from django.core.files.uploadedfile import UploadedFile

from apps.study.errors import ImportRefused
from apps.vault.readers import ExtractionError, run_isolated

MAX_IMPORT_MB = 20
READ_TIMEOUT_SECONDS = 60
READ_MEMORY_MB = 1024


def read_upload(upload: UploadedFile, reader: str) -> dict:
    """What `reader` ("module:function", Django-free) makes of the uploaded file; ImportRefused
    with the reason otherwise. A file above MAX_IMPORT_MB is refused unread."""
    if upload.size > MAX_IMPORT_MB * 1024 * 1024:
        raise ImportRefused(
            f"The file is {upload.size / 2**20:.0f} MB; an import takes files up to "
            f"{MAX_IMPORT_MB} MB."
        )
    with tempfile.TemporaryDirectory(prefix="cognivault-import-") as folder:
        path = Path(folder) / "upload"
        with path.open("wb") as copy:
            for chunk in upload.chunks():
                copy.write(chunk)
        try:
            return run_isolated(
                path,
                reader,
                timeout=READ_TIMEOUT_SECONDS,
                memory_mb=READ_MEMORY_MB,
                name=upload.name or "the file",
            )
        except ExtractionError as error:
            raise ImportRefused(str(error)) from None


def left_out(skipped: list[dict], shown: int = 8) -> list[str]:
    """One sentence per kind of thing left out of a file ({index, type, reason} each) and why,
    with their numbers in the file, for the page."""
    groups: dict[tuple[str, str], list[int]] = {}
    for s in skipped:
        groups.setdefault((s["type"], s["reason"]), []).append(s["index"])
    sentences = []
    for (kind, reason), numbers in groups.items():
        listed = ", ".join(map(str, numbers[:shown])) + (" …" if len(numbers) > shown else "")
        sentences.append(f"Left out {len(numbers)} × {kind} ({listed}): {reason}.")
    return sentences
