"""Files attached to a question: images for the model's eyes, PDF/DOCX as extracted text.

The web process decides the type by the file's first bytes (not its name) and stores the file
under DATA_DIR with a generated name; a worker of the `celery` queue reads it (`read`) in the
reading sandbox and marks it ready or failed with the reason (docs/chat.md). "Save to vault"
copies it into the vault and starts normal ingestion.
"""

import logging
import uuid
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone

from apps.accounts.ratelimits import check_person
from apps.chat.errors import AttachmentError
from apps.chat.models import Attachment, attachments_dir
from apps.jobs.lifecycle import run_claimed
from apps.vault import ingestion, readers, uploads
from apps.vault.models import Document

log = logging.getLogger(__name__)

EXTRACT_TIMEOUT = 60
EXTRACT_MEMORY_MB = 1024
MAX_TEXT = 200_000
MAX_IMAGE_PIXELS = 40_000_000  # a 8000×5000 photo; far beyond what a model looks at

CONTENT_TYPES = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
}
IMAGE_SIGNATURES = {
    b"\x89PNG\r\n\x1a\n": "image/png",
    b"\xff\xd8\xff": "image/jpeg",
    b"GIF87a": "image/gif",
    b"GIF89a": "image/gif",
}


def image_type(path: Path) -> str:
    head = path.open("rb").read(16)
    return sniff_image(head) or "application/octet-stream"


def sniff_image(head: bytes) -> str | None:
    for signature, content_type in IMAGE_SIGNATURES.items():
        if head.startswith(signature):
            return content_type
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return None


def kind_of(filename: str, head: bytes) -> str:
    suffix = Path(filename).suffix.lower()
    if sniff_image(head):
        return Attachment.Kind.IMAGE
    if suffix == ".pdf" and head.startswith(b"%PDF-"):
        return Attachment.Kind.PDF
    if suffix == ".docx" and head.startswith(b"PK\x03\x04"):
        return Attachment.Kind.DOCX
    raise AttachmentError(
        f"{filename}: only images (PNG, JPEG, GIF, WebP), PDF and DOCX files can be attached."
    )


def accept(user, upload: UploadedFile | None) -> Attachment:
    """Store an upload as a pending attachment for a worker to read (tasks.read_attachment).
    Every accepted one counts in RATE_LIMIT_ATTACHMENTS, and in the quota until it is deleted,
    whether or not it can be read: a loop of unreadable files ends."""
    if upload is None:
        raise AttachmentError("Choose a file to attach.")
    limit = settings.CHAT_MAX_ATTACHMENT_MB * 1024 * 1024
    name = Path(upload.name or "file").name[:255]
    if upload.size > limit:
        raise AttachmentError(f"{name} is larger than {settings.CHAT_MAX_ATTACHMENT_MB} MB.")
    # There is no scheduler (Celery beat): each new attachment clears out the old unsent ones,
    # which also gives their room back to the quota checked next.
    delete_unsent()
    room = user.room_bytes()
    if room is not None and upload.size > room:
        raise AttachmentError(user.over_quota_message(name))
    head = upload.read(16)
    upload.seek(0)
    kind = kind_of(name, head)
    check_person(user, "RATE_LIMIT_ATTACHMENTS", "attachments")
    folder = attachments_dir()
    folder.mkdir(parents=True, exist_ok=True)
    stored = f"{uuid.uuid4().hex}.{'img' if kind == Attachment.Kind.IMAGE else kind}"
    with (folder / stored).open("wb") as out:
        for piece in upload.chunks():
            out.write(piece)
    try:
        with transaction.atomic():
            if user.quota_bytes is not None:
                # Counted again: another upload of the person's may have taken the room since.
                user.lock_storage()
                if upload.size > user.room_bytes():
                    raise AttachmentError(user.over_quota_message(name))
            return Attachment.objects.create(
                owner=user, filename=name, kind=kind, stored_name=stored, size_bytes=upload.size
            )
    except BaseException:
        (folder / stored).unlink(missing_ok=True)
        raise


def read(attachment_id: int, worker: str) -> None:
    """The jobs worker's job (apps/jobs' run_claimed): check an image or extract a document's
    text in the reading sandbox; the attachment becomes ready, or failed with the reason and its
    file deleted."""
    attachment = Attachment.objects.filter(pk=attachment_id).first()
    if attachment is not None:
        run_claimed(
            Attachment.objects,
            attachment_id,
            worker,
            lambda: {"status": Attachment.Status.READY, "text": read_text(attachment)},
            expected=AttachmentError,
            unexpected=f"{attachment.filename} could not be read; attach it again.",
            on_error=lambda: attachment.path.unlink(missing_ok=True),
        )


def read_text(attachment: Attachment) -> str:
    """A document's text; an image is checked and has none."""
    if attachment.kind == Attachment.Kind.IMAGE:
        check_image(attachment.path, attachment.filename)
        return ""
    return extract_text(attachment.path, attachment.kind, attachment.filename)


def delete_unsent() -> None:
    """Delete everyone's attachments never sent with a question, older than
    CHAT_UNSENT_ATTACHMENT_HOURS, with their files."""
    cutoff = timezone.now() - timedelta(hours=settings.CHAT_UNSENT_ATTACHMENT_HOURS)
    stale = list(Attachment.objects.filter(message__isnull=True, created_at__lt=cutoff))
    for attachment in stale:
        attachment.path.unlink(missing_ok=True)
    Attachment.objects.filter(pk__in=[attachment.pk for attachment in stale]).delete()


def check_image(path: Path, name: str) -> None:
    """Refuse images that are unreadable or would decompress to a huge bitmap (a bomb): the
    reading sandbox counts the pixels from the header, nothing is decoded, and this process
    never opens the file."""
    try:
        result = readers.run_isolated(
            path, "image", timeout=EXTRACT_TIMEOUT, memory_mb=EXTRACT_MEMORY_MB, name=name
        )
    except readers.ExtractionError as error:
        raise AttachmentError(f"{name} is not an image we can read.") from error
    if result["pixels"] > MAX_IMAGE_PIXELS:
        raise AttachmentError(
            f"{name} has too many pixels; images are limited to "
            f"{MAX_IMAGE_PIXELS // 1_000_000} megapixels."
        )


def extract_text(path: Path, kind: str, name: str) -> str:
    """The vault's extractors, in a child process with time and memory limits (bombs)."""
    try:
        result = readers.run_isolated(
            path, kind, timeout=EXTRACT_TIMEOUT, memory_mb=EXTRACT_MEMORY_MB, name=name
        )
    except readers.ExtractionError as error:
        raise AttachmentError(f"{name}: {error}") from error  # not the stored name
    parts = []
    for unit in result.get("units", []):
        text, page = unit.get("text", ""), unit.get("page")
        parts.append(f"[page {page}] {text}" if page else text)
    text = "\n\n".join(part for part in parts if part.strip())
    if not text.strip():
        raise AttachmentError("No text could be read from this document.")
    return text[:MAX_TEXT]


def save_to_vault(attachment: Attachment):
    """A personal vault document from the attachment, ingested like any upload."""
    if attachment.saved_document_id:
        raise AttachmentError(f"{attachment.filename} is already in your vault.")
    if attachment.kind == Attachment.Kind.IMAGE:
        raise AttachmentError("Images cannot be added to the vault; PDF and DOCX can.")
    if attachment.status != Attachment.Status.READY:
        raise AttachmentError(f"{attachment.filename} has not been read; it cannot be saved.")
    with attachment.path.open("rb") as handle:
        blocks = iter(lambda: handle.read(1 << 20), b"")
        try:
            stored = uploads.store(
                attachment.owner, attachment.filename, blocks, scope=Document.Scope.PERSONAL
            )
        except uploads.UploadRefused as error:
            raise AttachmentError(str(error)) from error
    if stored.outcome != "unchanged":
        ingestion.start_run(attachment.owner, [stored.document.pk])
    attachment.saved_document = stored.document
    attachment.save(update_fields=["saved_document"])
    return stored.document
