"""What every generated study item carries while a worker makes it: its status, the reason it
failed, what was asked, the key of the request that asked, and the worker's claim and heartbeat.

A generation starts as a row in "generating" (the page and the API answer at once), a worker
claims it, beats while the model is busy and ends it "ready" in the same transaction that
stores the items, or "failed" with the reason (apps/jobs/lifecycle.py). A row whose worker
went silent for STUDY_STALE_SECONDS is marked failed, so nothing stays "generating" for ever.
"""

from django.db import models
from django.db.models import Q

from apps.jobs.lifecycle import Job, JobQuerySet
from apps.study.errors import NotReady, Superseded
from apps.study.ownership import ReadableQuerySet

GENERATING, READY, FAILED = "generating", "ready", "failed"
INTERRUPTED = "Interrupted: the worker making this stopped. Try again."


class Status(models.TextChoices):
    GENERATING = GENERATING
    READY = READY
    FAILED = FAILED


class GenerationQuerySet(ReadableQuerySet, JobQuerySet):
    """The claim, heartbeat and stale checks of apps/jobs for the generated items and a
    workshop's lessons (models with status, error, worker and heartbeat_at)."""

    RUNNING = GENERATING
    INTERRUPTED = INTERRUPTED
    STALE_SETTING = "STUDY_STALE_SECONDS"

    def settled(self) -> "GenerationQuerySet":
        """These items, once those whose worker went silent are marked interrupted (for a
        list, so nothing shows "being made" for ever)."""
        self.settle_stale()
        return self


def one_per_request(model_name: str) -> models.UniqueConstraint:
    """One item per request key and person: a form sent twice or a retried API call with the
    same Idempotency-Key finds the item the first one made."""
    return models.UniqueConstraint(
        fields=["owner", "request_key"],
        condition=~Q(request_key=""),
        name=f"{model_name}_one_per_request",
    )


class Generated(Job):
    """Fields and rules of an item a worker generates (Quiz, Workshop, Deck, Mindmap). Items
    made by hand are ready at once, so that is the default."""

    status = models.CharField(max_length=12, choices=Status.choices, default=READY)
    error = models.TextField(blank=True, help_text="Why generating it failed.")
    asked = models.JSONField(
        default=dict, blank=True, help_text="What the generator was asked (method, title, ...)."
    )
    request_key = models.CharField(
        max_length=100, blank=True, help_text="Form token or Idempotency-Key of the request."
    )
    worker = models.CharField(max_length=200, blank=True, help_text="The worker making it.")
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True

    @property
    def is_ready(self) -> bool:
        return self.status == READY

    def require_ready(self) -> None:
        """Refuse to use an item that is not made (yet): NotReady says why."""
        noun = self._meta.verbose_name
        if self.status == GENERATING:
            raise NotReady(f"This {noun} is still being made; try again when it is ready.")
        if self.status == FAILED:
            raise NotReady(f"This {noun} could not be made: {self.error}")

    def mark_ready(self, **fields) -> None:
        """Store what the worker made (call inside the transaction that saves the items). An
        item no longer generating by this worker (settled as interrupted meanwhile, perhaps
        retried since) raises Superseded, which rolls the items back with the transaction."""
        if not type(self).objects.finish(self.pk, self.worker, **fields, status=READY, error=""):
            raise Superseded(INTERRUPTED)
        for name, value in fields.items():
            setattr(self, name, value)
        self.status, self.error = READY, ""
