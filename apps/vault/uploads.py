"""Storing what people upload: validated (allow-listed extension, magic bytes, size) before it
becomes a document, kept under a generated name inside DATA_DIR; the client's filename is only
a label. Past its first bytes a file is read only in the reading sandbox, at ingestion.
Uploading the same filename into the same scope replaces that document's content."""

import hashlib
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction

from apps.vault.errors import ClassDocumentRefused, OverQuota, UploadRefused
from apps.vault.models import Category, Document, upload_dir
from apps.vault.readers import EXTENSIONS, format_for, looks_like, mismatch
from apps.vault.search.models import IndexState


@dataclass
class Stored:
    document: Document
    outcome: str  # "new", "changed" or "unchanged"


def clean_label(name: str) -> str:
    """The last path component, without control characters, at most 255 characters."""
    name = re.split(r"[\\/]", name or "")[-1]
    name = re.sub(r"[\x00-\x1f\x7f]", "", name).strip()
    return name[-255:]


def default_scope(owner) -> str:
    """Where an upload goes when the uploader does not say, through the page and the API
    alike: a teacher's to the class (what teachers upload for), anyone else's to themselves
    (the only place a student may upload to)."""
    return Document.Scope.CLASS if owner.is_staff else Document.Scope.PERSONAL


def scope_for(owner, scope: str | None) -> str:
    """Where `owner` may put a document: the scope asked for, else the default; the class is
    the teachers'."""
    scope = scope or default_scope(owner)
    if scope not in Document.Scope.values:
        raise UploadRefused("The scope must be 'class' or 'personal'.")
    if scope == Document.Scope.CLASS and not owner.is_staff:
        raise ClassDocumentRefused("Only teachers add class documents.")
    return scope


def store(
    owner,
    filename: str,
    blocks: Iterable[bytes],
    *,
    scope: str | None = None,
    category: Category | None = None,
    source_url: str = "",
) -> Stored:
    label = clean_label(filename)
    fmt = format_for(label)
    if not label or fmt is None:
        allowed = ", ".join(sorted({f".{ext}" for ext in EXTENSIONS}))
        raise UploadRefused(f"{label or 'This file'}: this file type is not accepted ({allowed}).")
    scope = scope_for(owner, scope)

    room = room_for(owner, scope, label)
    limit = settings.MAX_UPLOAD_MB * 1024 * 1024
    folder = upload_dir()
    folder.mkdir(parents=True, exist_ok=True)
    stored_name = f"{uuid.uuid4().hex}.{fmt}"
    partial = folder / f"{stored_name}.part"
    digest, size, head = hashlib.sha256(), 0, b""
    try:
        with open(partial, "wb") as handle:
            for block in blocks:
                size += len(block)
                if size > limit:
                    raise UploadRefused(
                        f"{label}: larger than the {settings.MAX_UPLOAD_MB} MB limit."
                    )
                if room is not None and size > room:
                    raise OverQuota(owner.over_quota_message(label))
                if len(head) < 8192:
                    head += block[: 8192 - len(head)]
                digest.update(block)
                handle.write(block)
        if size == 0:
            raise UploadRefused(f"{label}: the file is empty.")
        if not looks_like(fmt, head):
            raise UploadRefused(f"{label}: {mismatch(fmt, head)}")
        partial.rename(folder / stored_name)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    try:
        return save_document(
            owner, label, fmt, stored_name, digest.hexdigest(), size, scope, category, source_url
        )
    except BaseException:
        (folder / stored_name).unlink(missing_ok=True)
        raise


def room_for(owner, scope: str, label: str) -> int | None:
    """Bytes `owner` may still store (None: any); what the upload replaces (the same name in
    the same scope) gives its room back."""
    replaced = Document.objects.filter(owner=owner, scope=scope, filename=label)
    return owner.room_bytes(freed=sum(replaced.values_list("size_bytes", flat=True)))


def save_document(
    owner, label, fmt, stored_name, sha256, size, scope, category, source_url
) -> Stored:
    folder = upload_dir()
    with transaction.atomic():
        # Counted again once the file is in: the room checked as it came in may have been
        # taken meanwhile by another upload of the same person's.
        if owner.quota_bytes is not None:
            owner.lock_storage()
            room = room_for(owner, scope, label)
            if room is not None and size > room:
                raise OverQuota(owner.over_quota_message(label))
        existing = Document.objects.filter(scope=scope, filename=label)
        if scope == Document.Scope.PERSONAL:
            existing = existing.filter(owner=owner)
        document = existing.first()
        if document is None:
            document = Document.objects.create(
                owner=owner,
                scope=scope,
                category=category,
                filename=label,
                format=fmt,
                stored_name=stored_name,
                source_url=source_url,
                sha256=sha256,
                size_bytes=size,
            )
            return Stored(document, "new")
        if category is not None:
            document.category = category
        if document.sha256 == sha256:
            document.save(update_fields=["category", "updated_at"])
            transaction.on_commit(lambda: (folder / stored_name).unlink(missing_ok=True))
            return Stored(document, "unchanged")
        old_file = folder / document.stored_name
        was_live = document.status == Document.Status.DONE
        document.format, document.stored_name, document.sha256 = fmt, stored_name, sha256
        document.size_bytes, document.source_url = size, source_url or document.source_url
        document.status, document.error = Document.Status.PENDING, ""
        document.save()
        if was_live:
            IndexState.bump(document.pk)
        transaction.on_commit(lambda: old_file.unlink(missing_ok=True))
        return Stored(document, "changed")
