"""The vault: categories, documents (class or personal) and their chunks with vectors, and the
ingestion runs with their step checkpoints.

The FAISS and BM25 indexes are caches rebuilt from these rows; a chunk's vector lives here.
A chunk is live (searchable) when it has an embedding and its document's status is "done";
every change of that set bumps IndexState.generation (apps/vault/search/models.py) in the
same transaction.
"""

from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.db.models import Q
from django.shortcuts import get_object_or_404
from django.utils import timezone

from apps.jobs.lifecycle import JobQuerySet
from apps.vault.errors import CategoryRefused, CategoryTaken, NotEditable
from apps.vault.reading.models import Rendering, forget_drawings
from apps.vault.search.models import IndexState

__all__ = ["Rendering"]  # the reader's drawings, a model of this app


class CategoryManager(models.Manager):
    def create_named(self, name: str) -> "Category":
        """A new category, for the pages and the API alike: refused without a name
        (CategoryRefused) or with one that exists (CategoryTaken)."""
        name = name.strip()
        if not name:
            raise CategoryRefused("Give the category a name.")
        try:
            with transaction.atomic():
                return self.create(name=name)
        except IntegrityError:
            raise CategoryTaken(f"A category named {name} exists already.") from None


class Category(models.Model):
    name = models.CharField(max_length=100, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = CategoryManager()

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "categories"

    def __str__(self) -> str:
        return self.name


class DocumentQuerySet(models.QuerySet):
    def visible_to(self, user) -> "DocumentQuerySet":
        """Class documents, plus the asker's own personal ones; never another's."""
        return self.filter(Q(scope=Document.Scope.CLASS) | Q(owner=user))

    def editable_by(self, user) -> "DocumentQuerySet":
        """Teachers change class documents; everyone changes their own personal ones."""
        mine = Q(scope=Document.Scope.PERSONAL, owner=user)
        if user.is_staff:
            return self.filter(mine | Q(scope=Document.Scope.CLASS))
        return self.filter(mine)

    def to_change(self, user, pk: int) -> "Document":
        """Document `pk` for `user` to change or delete: 404 when they do not see it (another's
        personal document is told apart from none by nothing), NotEditable (403) when they see
        it and may not change it."""
        document = get_object_or_404(self.visible_to(user), pk=pk)
        if not self.editable_by(user).filter(pk=pk).exists():
            raise NotEditable("Only teachers change class documents.")
        return document

    def downloadable_by(self, user) -> "DocumentQuerySet":
        """Originals: what the person changes, and class documents a teacher lets out."""
        return self.editable_by(user) | self.visible_to(user).filter(downloadable=True)


class Document(models.Model):
    class Scope(models.TextChoices):
        CLASS = "class"
        PERSONAL = "personal"

    class Status(models.TextChoices):
        PENDING = "pending"
        PROCESSING = "processing"
        DONE = "done"
        FAILED = "failed"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="documents"
    )
    scope = models.CharField(max_length=10, choices=Scope.choices, default=Scope.PERSONAL)
    category = models.ForeignKey(
        Category, null=True, blank=True, on_delete=models.SET_NULL, related_name="documents"
    )
    filename = models.CharField(max_length=255, help_text="The uploader's name for it: a label.")
    format = models.CharField(max_length=10)
    stored_name = models.CharField(max_length=100, help_text="Generated file name under DATA_DIR.")
    source_url = models.URLField(max_length=2000, blank=True)
    sha256 = models.CharField(max_length=64)
    size_bytes = models.PositiveBigIntegerField(default=0)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    error = models.TextField(blank=True)
    pages = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    ingested_at = models.DateTimeField(null=True, blank=True)
    # Checkpoints, keyed by the file's hash: the version whose chunks exist and the live one.
    chunked_sha256 = models.CharField(max_length=64, blank=True)
    indexed_sha256 = models.CharField(max_length=64, blank=True)
    chunk_count = models.PositiveIntegerField(default=0)
    ocr_pages = models.PositiveIntegerField(default=0)
    downloadable = models.BooleanField(default=True, help_text="Students may download it.")

    objects = DocumentQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["filename"], condition=Q(scope="class"), name="unique_class_filename"
            ),
            models.UniqueConstraint(
                fields=["owner", "filename"],
                condition=Q(scope="personal"),
                name="unique_personal_filename",
            ),
        ]

    def __str__(self) -> str:
        return self.filename

    @property
    def path(self) -> Path:
        return upload_dir() / self.stored_name

    def delete_with_file(self) -> None:
        """The document and its chunks go in one transaction; the file and the pages drawn of
        it once that committed."""
        path, pk = self.path, self.pk
        with transaction.atomic():
            self.chunks.all().delete()
            IndexState.bump(self.pk)
            self.delete()
        transaction.on_commit(lambda: (path.unlink(missing_ok=True), forget_drawings(pk)))

    def reset_for_reingest(self) -> None:
        """Queue the document for the next run, keeping its checkpoints: they are keyed by the
        file's hash, so a file whose bytes did not change resumes at its first unfinished step
        (a done one is made live again without being read or embedded; a batch embedded with
        another model is embedded again), and a changed or never-read one is read from the
        start."""
        with transaction.atomic():
            Document.objects.filter(pk=self.pk).update(status=Document.Status.PENDING, error="")
            if self.status == Document.Status.DONE:
                IndexState.bump(self.pk)


def upload_dir() -> Path:
    """Where originals live, under a generated name (read at call time: tests move DATA_DIR)."""
    return Path(settings.DATA_DIR) / "uploads"


class ChunkQuerySet(models.QuerySet):
    def live(self) -> "ChunkQuerySet":
        """What both retrievers serve: embedded chunks of documents whose ingestion is done."""
        return self.filter(embedding__isnull=False, document__status=Document.Status.DONE)


class Chunk(models.Model):
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="chunks")
    document_sha256 = models.CharField(max_length=64, help_text="The file version it came from.")
    ordinal = models.PositiveIntegerField()
    text = models.TextField()
    page = models.PositiveIntegerField(null=True, blank=True, help_text="Page or slide number.")
    section = models.CharField(max_length=500, blank=True, help_text="Sheet or heading path.")
    embedding = models.BinaryField(null=True, help_text="float32 vector, L2-normalised.")
    embedding_model = models.CharField(max_length=200, blank=True)

    objects = ChunkQuerySet.as_manager()

    class Meta:
        ordering = ["document_id", "ordinal"]
        constraints = [
            models.UniqueConstraint(
                fields=["document", "document_sha256", "ordinal"], name="unique_chunk_position"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.document} #{self.ordinal}"


class Extraction(models.Model):
    """The extract step's checkpoint: a document version's text units, until it is indexed."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="extractions")
    sha256 = models.CharField(max_length=64)
    units = models.JSONField()
    pages = models.PositiveIntegerField(null=True)
    ocr_pages = models.PositiveIntegerField(default=0)
    ocr_seconds = models.FloatField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["document", "sha256"], name="unique_extraction"),
        ]

    def __str__(self) -> str:
        return f"{self.document} @ {self.sha256[:8]}"


class StaleAttempt(Exception):
    """A task of a finished run, or of an attempt that a resume replaced."""


class IngestRunQuerySet(JobQuerySet):
    STALE_SETTING = "INGEST_STALE_SECONDS"

    def visible_to(self, user) -> "IngestRunQuerySet":
        return self.filter(owner=user)

    def unfinished(self) -> "IngestRunQuerySet":
        return self.filter(status__in=[IngestRun.Status.PENDING, IngestRun.Status.RUNNING])


class Timed:
    """A run or step: how long it ran, or has run so far (None before it started)."""

    def elapsed_seconds(self) -> float | None:
        if not self.started_at:
            return None
        return ((self.finished_at or timezone.now()) - self.started_at).total_seconds()


class IngestRun(Timed, models.Model):
    """One ingestion: its steps (apps/vault/ingest_steps.py), each checkpointed."""

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ingest_runs"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    error = models.TextField(blank=True)
    # Empty: every document the owner may change. Otherwise just these.
    document_ids = models.JSONField(default=list, blank=True)
    documents = models.ManyToManyField(Document, blank=True, related_name="ingest_runs")
    # A resumed run gets a new attempt; tasks of an older attempt (a redelivered message of a
    # dead worker) see the difference and stop.
    attempt = models.PositiveIntegerField(default=0)
    worker = models.CharField(max_length=200, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = IngestRunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Ingestion {self.pk} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED)

    def touch(self) -> None:
        """Heartbeat; raises StaleAttempt once a resume has taken the run over."""
        if not IngestRun.objects.filter(attempt=self.attempt).beat(self.pk):
            raise StaleAttempt(f"run {self.pk} attempt {self.attempt} was superseded")

    def processing(self) -> DocumentQuerySet:
        """The documents this run is still working on."""
        return self.documents.filter(status=Document.Status.PROCESSING).order_by("pk")

    @property
    def step_now(self) -> str:
        """The step a running run is at ("" for one waiting or finished), from its steps as
        read (prefetched for a list)."""
        if self.status != self.Status.RUNNING:
            return ""
        waiting = (step for step in self.steps.all() if step.status != IngestStep.Status.DONE)
        return next((step.name for step in waiting), "")

    def at_work(self) -> set[int]:
        """The documents a running run has still to finish: the Documents table says they are
        processing, and at which step."""
        if not self.step_now:
            return set()
        named = Q(ingest_runs=self) | Q(pk__in=self.document_ids)
        unfinished = [Document.Status.PENDING, Document.Status.PROCESSING]
        documents = Document.objects.filter(named, status__in=unfinished)
        return set(documents.values_list("pk", flat=True))


class IngestStep(Timed, models.Model):
    class Status(models.TextChoices):
        WAITING = "waiting"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    run = models.ForeignKey(IngestRun, on_delete=models.CASCADE, related_name="steps")
    position = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=20)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    detail = models.CharField(max_length=300, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["run_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["run", "name"], name="unique_step_per_run"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.status})"

    def report(self, *, done=None, total=None, detail=None) -> None:
        """The step's progress, as the Ingestion page shows it."""
        if done is not None:
            self.done = done
        if total is not None:
            self.total = total
        if detail is not None:
            self.detail = detail[:300]
        self.save(update_fields=["done", "total", "detail"])

    def finish(self) -> None:
        self.status, self.finished_at = IngestStep.Status.DONE, timezone.now()
        self.save(update_fields=["status", "finished_at", "done", "total", "detail"])


class SelfTestQuerySet(models.QuerySet):
    def visible_to(self, user) -> "SelfTestQuerySet":
        """A student sees the tests of their own documents; teachers the class vault's."""
        if not user.is_authenticated:
            return self.none()
        if user.is_staff:
            return self.filter(owner__is_staff=True)
        return self.filter(owner=user)


class SelfTest(models.Model):
    """How well search finds the vault's own sentences after an ingestion run: cloze
    questions from a fixed sample of chunks, searched as chat and study search."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="vault_selftests"
    )
    run = models.OneToOneField(
        IngestRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="selftest"
    )
    generation = models.PositiveBigIntegerField(help_text="Index generation it tested.")
    questions = models.PositiveIntegerField(default=0)
    recall_at_7 = models.FloatField(default=0.0)
    mrr = models.FloatField(default=0.0, help_text="Mean reciprocal rank within the top 20.")
    seconds = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = SelfTestQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"Self-test {self.pk}: recall@7 {self.recall_at_7:.2f}"


class SelfTestDocument(models.Model):
    selftest = models.ForeignKey(SelfTest, on_delete=models.CASCADE, related_name="documents")
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="selftests")
    questions = models.PositiveIntegerField()
    recall_at_7 = models.FloatField()
    mrr = models.FloatField()
    missed = models.JSONField(default=list, help_text="Ids of chunks search did not find.")

    class Meta:
        ordering = ["recall_at_7", "mrr", "document_id"]
        constraints = [
            models.UniqueConstraint(fields=["selftest", "document"], name="unique_selftest_doc")
        ]

    def __str__(self) -> str:
        return f"{self.document_id}: recall@7 {self.recall_at_7:.2f}"
