"""The reader's REST routes under /api/v1/vault/: a PDF page as an image, a passage with its
rectangles on its page, and a document's original file where it may be downloaded."""

from typing import Annotated

from django.http import FileResponse, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404
from ninja import Field, Router, Schema
from ninja.errors import HttpError

from apps.accounts.api import ErrorOut, Id
from apps.vault.models import Chunk, Document
from apps.vault.reading import page_marks, renderings
from apps.vault.reading.models import Rendering

router = Router(tags=["vault"])

PageNumber = Annotated[int, Field(ge=1, le=1_000_000)]
BEING_DRAWN = {202: ErrorOut, 404: ErrorOut, 429: ErrorOut}
CONTENT_TYPES = {
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "csv": "text/csv",
    "md": "text/markdown",
    "txt": "text/plain",
    "html": "text/html",
}


class ChunkOut(Schema):
    id: Id
    document_id: Id
    page: int | None
    section: str
    text: str
    boxes: list[list[float]] = Field(
        description="The passage's rectangles on its page, [x0, y0, x1, y1] in PDF points from "
        "the top left of the page as drawn; empty for a document without drawn pages."
    )


def visible(request: HttpRequest, document_id: int) -> Document:
    return get_object_or_404(Document.objects.visible_to(request.auth), pk=document_id)


def being_drawn(rendering: Rendering) -> HttpResponse | None:
    """202 with Retry-After while a worker draws the page."""
    if rendering.status != Rendering.Status.RUNNING:
        return None
    detail = f"Page {rendering.page} is being drawn; ask again in a moment."
    response = JsonResponse({"detail": detail}, status=202)
    response["Retry-After"] = "1"
    return response


@router.get(
    "/documents/{document_id}/pages/{number}.png",
    response={200: None, **BEING_DRAWN, 422: ErrorOut},
)
def page_image(request: HttpRequest, document_id: Id, number: PageNumber):
    """Page `number` of a PDF drawn at screen resolution (PNG). The first time, a worker draws
    it: 202 until it is ready (each page drawn counts against your rate of pages drawn, 429);
    a page that cannot be drawn is a 422 saying why."""
    document = visible(request, document_id)
    if not renderings.has_pages(document):
        raise HttpError(404, f"{document.filename} has no pages to draw; read it as text.")
    rendering = renderings.requested(document, number, request.auth)
    if (waiting := being_drawn(rendering)) is not None:
        return waiting
    if rendering.status == Rendering.Status.FAILED:
        raise HttpError(422, rendering.error)
    response = FileResponse(rendering.image_path.open("rb"), content_type="image/png")
    response["Cache-Control"] = "private, max-age=3600"
    return response


@router.get("/chunks/{chunk_id}", response={200: ChunkOut, **BEING_DRAWN})
def get_chunk(request: HttpRequest, chunk_id: Id):
    """A passage, with its rectangles on its page: 202 while that page is being drawn."""
    visible_documents = Document.objects.visible_to(request.auth)
    chunk = get_object_or_404(
        Chunk.objects.select_related("document"), pk=chunk_id, document__in=visible_documents
    )
    chunk.boxes = []
    document = chunk.document
    if renderings.has_pages(document) and chunk.page and chunk.page <= (document.pages or 0):
        rendering = renderings.requested(document, chunk.page, request.auth)
        if (waiting := being_drawn(rendering)) is not None:
            return waiting
        if rendering.status == Rendering.Status.READY:
            words = rendering.data()["words"]
            chunk.boxes = page_marks.boxes(words, page_marks.passage_words(words, chunk.text))
    return chunk


@router.get("/documents/{document_id}/file", response={200: None, 403: ErrorOut, 404: ErrorOut})
def document_file(request: HttpRequest, document_id: Id):
    """The original file, as uploaded: your own documents, and class documents your teacher
    lets you download (403 otherwise)."""
    document = visible(request, document_id)
    if not Document.objects.downloadable_by(request.auth).filter(pk=document.pk).exists():
        raise HttpError(403, "Your teacher keeps this document in the app: read it there.")
    if not document.path.exists():
        raise HttpError(404, f"The file of {document.filename} is missing.")
    return FileResponse(
        document.path.open("rb"),
        as_attachment=True,
        filename=document.filename,
        content_type=CONTENT_TYPES.get(document.format, "application/octet-stream"),
    )
