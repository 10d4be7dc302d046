"""What the reader keeps of a document version: each page a worker drew (its image and its
words) and the reading text of a document that has no pages to draw. Rows are jobs of the jobs
worker (apps/jobs); their files live under DATA_DIR/reader/<document id>/."""

import json
import shutil
from pathlib import Path

from django.conf import settings
from django.db import models

from apps.jobs.lifecycle import Job, JobQuerySet


class RenderingQuerySet(JobQuerySet):
    INTERRUPTED = "The worker drawing this stopped; it is drawn again when you open it."
    STALE_SETTING = "INGEST_STALE_SECONDS"


class Rendering(Job):
    """Page `page` of a document version drawn for reading (`<pk>.png`, and its words in
    `<pk>.json`), or, as page 0, the reading text of a document without pages to draw (its
    extracted units in `<pk>.json`)."""

    class Status(models.TextChoices):
        RUNNING = "running"  # waiting for a worker, or being drawn
        READY = "ready"
        FAILED = "failed"

    document = models.ForeignKey(
        "vault.Document", on_delete=models.CASCADE, related_name="renderings"
    )
    sha256 = models.CharField(max_length=64, help_text="The file version it was drawn from.")
    page = models.PositiveIntegerField(help_text="0: the whole reading text.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    error = models.TextField(blank=True, help_text="Why it could not be drawn.")
    worker = models.CharField(max_length=200, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    size_bytes = models.PositiveBigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = RenderingQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["document", "sha256", "page"], name="unique_rendering"),
        ]

    def __str__(self) -> str:
        return f"{self.document_id} page {self.page} ({self.status})"

    @property
    def image_path(self) -> Path:
        return reader_dir(self.document_id) / f"{self.pk}.png"

    @property
    def data_path(self) -> Path:
        return reader_dir(self.document_id) / f"{self.pk}.json"

    def data(self) -> dict:
        """What the worker found: the page's words and size, or the document's units."""
        return json.loads(self.data_path.read_text())

    def remove(self) -> None:
        self.image_path.unlink(missing_ok=True)
        self.data_path.unlink(missing_ok=True)
        self.delete()


def reader_dir(document_id: int) -> Path:
    """A document's drawings (read at call time: tests move DATA_DIR)."""
    return Path(settings.DATA_DIR) / "reader" / str(document_id)


def forget_drawings(document_id: int) -> None:
    shutil.rmtree(reader_dir(document_id), ignore_errors=True)
