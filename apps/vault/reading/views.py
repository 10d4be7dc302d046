"""The reader's pages: a document opened at a page with a passage marked (PDF pages drawn by a
worker and loaded as they scroll into view, any other format as its text), and a chunk's own
address, which leads there."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from apps.accounts.ratelimits import RateLimited
from apps.vault.models import Chunk, Document
from apps.vault.reading import page_marks, renderings, text_marks
from apps.vault.reading.links import source_url
from apps.vault.reading.models import Rendering


def visible_document(request: HttpRequest, pk: int) -> Document:
    documents = Document.objects.visible_to(request.user).select_related("category")
    return get_object_or_404(documents, pk=pk)


def cited_chunk(document: Document, value: str | None) -> Chunk | None:
    """The passage `?chunk=` names, if it is one of this document's."""
    return document.chunks.filter(pk=int(value)).first() if (value or "").isdigit() else None


WINDOW = 10  # pages laid out around the one opened, and added at a time as the reader scrolls


@require_GET
@login_required
def reader(request: HttpRequest, pk: int) -> HttpResponse:
    """`?page=N&chunk=C`: open at page N (else the passage's page) with passage C marked. The
    page lays out the slots of the pages around it; htmx asks for more as they come into view
    (`?from=N`: the pages from N on, `?to=N`: those up to N)."""
    document = visible_document(request, pk)
    chunk = cited_chunk(document, request.GET.get("chunk"))
    pages = (document.pages or 0) if renderings.has_pages(document) else 0
    asked = whole(request.GET.get("page")) or (chunk.page if chunk else None) or 1
    start = min(asked, pages)
    context = {"document": document, "chunk": chunk, "start": start}
    after, before = whole(request.GET.get("from")), whole(request.GET.get("to"))
    if request.htmx and (after or before):
        first, last = (after, after + WINDOW - 1) if after else (before - WINDOW + 1, before)
        context.update(window(pages, first, last, earlier=not after, later=bool(after)))
        return render(request, "vault/reader.html#pages", context)
    context.update(window(pages, start - 2, start + WINDOW))
    context["downloadable"] = Document.objects.downloadable_by(request.user).filter(pk=pk).exists()
    return render(request, "vault/reader.html", context)


def whole(value: str | None) -> int:
    """A page number asked for (0: none)."""
    return int(value) if (value or "").isdigit() else 0


def window(pages: int, first: int, last: int, *, earlier=True, later=True) -> dict:
    """The slots of pages `first` to `last` (within the document), and where the ones before
    and after them start, if they are to be asked for."""
    first, last = max(first, 1), min(last, pages)
    return {
        "numbers": range(first, last + 1),
        "earlier": first - 1 if earlier and first > 1 else 0,
        "later": last + 1 if later and last < pages else 0,
    }


@require_GET
@login_required
def page(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """One page as drawn (page 0: the text of a document without pages), with the passage
    `?chunk=` marked on it; while a worker draws it, a placeholder that asks again."""
    document = visible_document(request, pk)
    if not request.htmx:  # opened by its address: the whole reader, at this page
        asked = request.GET.copy()
        asked.setlist("page", [str(number)] if number else [])
        return redirect(f"{reverse('vault:reader', args=[pk])}?{asked.urlencode()}")
    chunk = cited_chunk(document, request.GET.get("chunk"))
    context = {"document": document, "number": number, "chunk": chunk}
    try:
        rendering = renderings.requested(document, number, request.user)
    except renderings.NoSuchPage as error:
        raise Http404(str(error)) from None
    except RateLimited as error:  # the slot tries again once it may
        context.update(notice=str(error), wait=error.wait)
        return render(request, "vault/reader.html#page", context)
    context["rendering"] = rendering
    if rendering.status == Rendering.Status.READY:
        context.update(shown(rendering, document, chunk))
    return render(request, "vault/reader.html#page", context)


def shown(rendering: Rendering, document: Document, chunk: Chunk | None) -> dict:
    """What the page shows of a drawing: the image's size, the passage's rectangles and the
    page's text; or the document's text with the passage marked."""
    data = rendering.data()
    if not rendering.page:
        passage = chunk.text if chunk else ""
        return {"parts": text_marks.parts(data["units"], document.format, passage)}
    words = data["words"]
    cited = chunk is not None and chunk.page == rendering.page
    marked = page_marks.passage_words(words, chunk.text) if cited else range(0)
    return {
        "width": data["width"],
        "height": data["height"],
        "scanned": data["ocr"],
        "boxes": [[x0, y0, x1 - x0, y1 - y0] for x0, y0, x1, y1 in page_marks.boxes(words, marked)],
        "paragraphs": page_marks.paragraphs(words, marked),
    }


@require_GET
@login_required
def passage(request: HttpRequest, chunk_pk: int) -> HttpResponse:
    """A passage known by its id alone (a mindmap node, a card, a missed search question):
    its document's reader at its page."""
    visible = Document.objects.visible_to(request.user)
    chunk = get_object_or_404(
        Chunk.objects.only("document_id", "page"), pk=chunk_pk, document__in=visible
    )
    return redirect(source_url(chunk))
