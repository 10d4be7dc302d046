"""The vault: categories, documents (class or personal) and their chunks with vectors.

The FAISS and BM25 indexes are caches rebuilt from these rows; a chunk's vector lives here.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q


class Category(models.Model):
    name = models.CharField(max_length=100, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

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


class Chunk(models.Model):
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="chunks")
    document_sha256 = models.CharField(max_length=64, help_text="The file version it came from.")
    ordinal = models.PositiveIntegerField()
    text = models.TextField()
    page = models.PositiveIntegerField(null=True, blank=True, help_text="Page or slide number.")
    section = models.CharField(max_length=500, blank=True, help_text="Sheet or heading path.")
    embedding = models.BinaryField(null=True, help_text="float32 vector, L2-normalised.")
    embedding_model = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["document_id", "ordinal"]
        constraints = [
            models.UniqueConstraint(
                fields=["document", "document_sha256", "ordinal"], name="unique_chunk_position"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.document} #{self.ordinal}"
