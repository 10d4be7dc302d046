"""Pages drawn for reading. The web process asks for one (`requested`: queued for the jobs worker
once, counted against the person's rate of pages drawn); the worker draws it in the reading
sandbox (`draw`), never the web process; the oldest drawings go once all of them pass
READER_CACHE_MB (`evict`). A PDF has its pages drawn one by one, as they are looked at; any other
document has one rendering, page 0, its reading text."""

import base64
import json

from celery import signature
from django.conf import settings
from django.db import transaction
from django.db.models import Sum

from apps.accounts.ratelimits import check_person
from apps.jobs.lifecycle import run_claimed
from apps.vault import readers
from apps.vault.errors import VaultError
from apps.vault.models import Document
from apps.vault.readers.formats import PAGE_KIND
from apps.vault.reading.models import Rendering, RenderingQuerySet, reader_dir

DRAW_TASK = "apps.vault.tasks.draw_page"
PAGE_TIMEOUT = 120  # seconds for one page, OCR included; a whole text has EXTRACT_TIMEOUT_SECONDS
RUNNING = Rendering.Status.RUNNING
INTERRUPTED = RenderingQuerySet.INTERRUPTED


class NoSuchPage(VaultError):
    status = 404


def has_pages(document: Document) -> bool:
    """PDFs are drawn page by page; every other format is read as its text."""
    return document.format == "pdf"


def requested(document: Document, page: int, user) -> Rendering:
    """Page `page` of the document as it is now (0: the reading text of one without pages),
    drawn or on its way to a worker. Queueing it counts against the person's
    RATE_LIMIT_PAGES_DRAWN (RateLimited past it); asking for one drawn or on its way does not."""
    drawable = 1 <= page <= (document.pages or 0) if has_pages(document) else page == 0
    if not drawable:
        raise NoSuchPage(f"{document.filename} has no page {page}.")
    mine = Rendering.objects.filter(document=document, sha256=document.sha256, page=page)
    rendering = mine.first()
    if rendering is not None and rendering.status == Rendering.Status.READY:
        if rendering.data_path.exists():
            return rendering
        rendering.remove()  # its files went (evicted meanwhile): it is drawn again
        rendering = None
    if rendering is not None:
        rendering.settle()
        if rendering.error != INTERRUPTED:
            return rendering
    check_person(user, "RATE_LIMIT_PAGES_DRAWN", "pages drawn")
    if rendering is None:
        rendering, created = Rendering.objects.get_or_create(
            document=document, sha256=document.sha256, page=page
        )
        if not created:
            return rendering
    elif mine.filter(error=INTERRUPTED).restart(rendering.pk):
        rendering.status, rendering.error = RUNNING, ""
    else:  # someone else asked again meanwhile
        rendering.refresh_from_db()
        return rendering
    transaction.on_commit(lambda: signature(DRAW_TASK, args=(rendering.pk,)).apply_async())
    return rendering


def draw(rendering_id: int, worker: str) -> None:
    """The jobs worker's job (apps/jobs' run_claimed): draw the page or read the text in the
    sandbox, keep what it made on disk, then make room in the cache."""
    rendering = Rendering.objects.select_related("document").filter(pk=rendering_id).first()
    if rendering is None:
        return
    run_claimed(
        Rendering.objects,
        rendering_id,
        worker,
        lambda: drawn(rendering),
        expected=readers.ExtractionError,
        unexpected="This could not be drawn.",
    )
    evict(keep=rendering_id)


def drawn(rendering: Rendering) -> dict:
    document = rendering.document
    if document.sha256 != rendering.sha256:
        raise readers.ExtractionError("The document changed since; open it again.")
    page = rendering.page
    result = readers.run_isolated(
        document.path,
        f"{PAGE_KIND}{page}" if page else document.format,
        timeout=PAGE_TIMEOUT if page else settings.EXTRACT_TIMEOUT_SECONDS,
        memory_mb=settings.EXTRACT_MEMORY_MB,
        name=document.filename,
    )
    reader_dir(document.pk).mkdir(parents=True, exist_ok=True)
    size = 0
    if "png" in result:
        image = base64.b64decode(result.pop("png"))
        rendering.image_path.write_bytes(image)
        size += len(image)
    data = json.dumps(result)
    rendering.data_path.write_text(data)
    # What was drawn of the document's older versions is of no more use.
    older = Rendering.objects.filter(document=document).exclude(sha256=document.sha256)
    for old in older.exclude(status=RUNNING):
        old.remove()
    return {"status": Rendering.Status.READY, "size_bytes": size + len(data)}


def evict(keep: int | None = None) -> int:
    """The oldest drawings go until the others fit in READER_CACHE_MB (the one just drawn,
    `keep`, stays); how many went."""
    room = settings.READER_CACHE_MB * 1024 * 1024
    ready = Rendering.objects.filter(status=Rendering.Status.READY).exclude(pk=keep)
    total = ready.aggregate(total=Sum("size_bytes"))["total"] or 0
    if keep is not None:
        total += Rendering.objects.filter(pk=keep).values_list("size_bytes", flat=True).first() or 0
    dropped = 0
    for rendering in ready.order_by("pk").iterator():
        if total <= room:
            break
        total -= rendering.size_bytes
        rendering.remove()
        dropped += 1
    return dropped
