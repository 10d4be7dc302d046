"""Page parts every Study Hub tab shares: the tab frame, downloads, new badges, a source."""

from collections.abc import Callable
from typing import TypeVar

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from apps.vault.models import Chunk, Document

T = TypeVar("T")
MARKDOWN = "text/markdown; charset=utf-8"


def announce(request: HttpRequest, badges: list) -> None:
    for badge in badges:
        messages.success(request, f"New badge: {getattr(badge, 'name', badge)}")


def report_shortfall(request: HttpRequest, made: int, asked: int, things: str) -> None:
    if made < asked:
        messages.info(
            request,
            f"The model gave {made} usable {things} of {asked}; "
            "the rest were malformed and left out.",
        )


def study_tab(request: HttpRequest, template: str, context: dict, status: int) -> HttpResponse:
    """A Study Hub tab; its generate form needs to know whether there is anything to use."""
    context["has_documents"] = Document.objects.visible_to(request.user).exists()
    return render(request, template, context, status=status)


def download(
    thing: T, fmt: str, formats: dict[str, tuple[str, Callable]], name: str
) -> HttpResponse:
    """`thing` made into `fmt` (only that one) as a download; an unknown format is a 404."""
    if fmt not in formats:
        raise Http404(f"Exports are {', '.join(formats)}.")
    content_type, make = formats[fmt]
    response = HttpResponse(make(thing), content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{name}.{fmt}"'
    return response


@require_GET
@login_required
def source_detail(request: HttpRequest, chunk_pk: int) -> HttpResponse:
    """The excerpt a question or lesson was built from, with its document and page."""
    visible = Document.objects.visible_to(request.user)
    chunk = get_object_or_404(Chunk.objects.select_related("document"), pk=chunk_pk,
                              document__in=visible)  # fmt: skip
    return render(request, "study/source.html", {"chunk": chunk})
