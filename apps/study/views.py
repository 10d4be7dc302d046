"""Page parts every Study Hub tab shares: the tab frame, its generate form's start, deleting an
item, downloads, new badges, and the card of an item a worker is making."""

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from apps.accounts.ratelimits import rate_limited
from apps.progress.models import EarnedBadge
from apps.study import errors, kinds, stale, starting, tasks
from apps.study.errors import StudyError
from apps.study.forms import ScopeForm
from apps.study.generation_job import FAILED, READY
from apps.study.ownership import get_visible
from apps.vault.models import Document

MARKDOWN = "text/markdown; charset=utf-8"


def announce(request: HttpRequest, badges: list) -> None:
    """Name the badges just earned: `tracking` hands back EarnedBadge rows, the generation card
    their definitions."""
    for badge in badges:
        definition = badge.badge if isinstance(badge, EarnedBadge) else badge
        messages.success(request, f"New badge: {definition.name}")


def study_tab(request: HttpRequest, template: str, context: dict, status: int) -> HttpResponse:
    """A Study Hub tab; its generate form needs to know whether there is anything to use."""
    context["has_documents"] = Document.objects.visible_to(request.user).exists()
    context["stale"] = stale.counts(request.user)
    return render(request, template, context, status=status)


def generate(
    request: HttpRequest, kind: str, form: ScopeForm, make: Callable, *asked: str
) -> HttpResponse | None:
    """What a tab's generate form sends: the page of the item `make` starts (or started before,
    the same form sent again), given the form's own fields named `asked`; None when the form or
    the start is refused, the form then saying why."""
    if not form.is_valid():
        return None
    try:
        item = starting.start(
            request,
            kind,
            request.user,
            form.key,
            make,
            for_class=form.hand_out_to,
            scope=form.scope,
            method=form.chosen_method,
            **{name: form.cleaned_data[name] for name in asked},
        )
    except errors.KeyReused:
        # The back button: this form's token went with other choices before.
        form.renew_token()
        form.add_error(None, "This form was sent before with other choices: send it again.")
        return None
    except StudyError as error:
        errors.show(request, error, form)
        return None
    return redirect(kinds.get(kind).url(item))


def download(
    thing: object, fmt: str, formats: dict[str, tuple[str, Callable]], name: str
) -> HttpResponse:
    """`thing` made into `fmt` (only that one) as a download; an unknown format is a 404."""
    if fmt not in formats:
        raise Http404(f"Exports are {', '.join(formats)}.")
    content_type, make = formats[fmt]
    response = HttpResponse(make(thing), content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{name}.{fmt}"'
    return response


@require_POST
@login_required
def delete(request: HttpRequest, pk: int, kind: str) -> HttpResponse:
    """Delete one of the asker's items (a deck, a mindmap) and go back to its tab."""
    made = kinds.get(kind)
    item = get_visible(made.model.objects.visible_to, request.user, pk=pk)
    item.delete()
    messages.success(request, f"Deleted the {made.model._meta.verbose_name} “{item.title}”.")
    return redirect(made.tab.url)


def kind_with_page(kind: str) -> kinds.Kind:
    try:
        made = kinds.get(kind)
    except kinds.UnknownKind:
        raise Http404("No such kind of study material.") from None
    if not made.detail_url:
        raise Http404("No such kind of study material.")
    return made


@require_POST
@login_required
def stale_refresh(request: HttpRequest, kind: str, pk: int) -> HttpResponse:
    """Refresh only the items of one quiz, deck, workshop or mindmap whose source changed."""
    made = kind_with_page(kind)
    if made.refresh is None:
        raise Http404("This kind of study material has nothing to refresh.")
    item = get_object_or_404(made.model.objects.visible_to(request.user), pk=pk)
    refreshed = made.refresh(item)
    messages.success(
        request,
        f"Refreshed {refreshed} item{'s' if refreshed != 1 else ''} from their changed sources.",
    )
    return redirect(made.refreshed_url or made.url(item))


def own_generated(request: HttpRequest, kind: str, pk: int):
    model = kind_with_page(kind).model
    item = get_object_or_404(model.objects.visible_to(request.user), pk=pk)
    item.settle()
    return item


def render_generating(request: HttpRequest, kind: str, item) -> HttpResponse:
    """The page (or, for htmx, the card) of an item that is being made or failed."""
    made = kinds.get(kind)
    context = {
        "kind": kind,
        "item": item,
        "making": made.making(item),
        "detail_url": made.url(item),
    }
    template = "study/generating.html" + ("#generation-card" if request.htmx else "")
    return render(request, template, context)


def report_made(request: HttpRequest, kind: str, item) -> None:
    """Once, when the card sees the item ready: the badges the worker's making of it earned
    (those earned since it was asked for), whether fewer items came than were asked, and how
    many of them the text filled in."""
    earned = EarnedBadge.objects.visible_to(request.user).filter(earned_at__gte=item.created_at)
    announce(request, [earned_badge.badge for earned_badge in earned.select_related("badge")])
    shortfall = kinds.get(kind).shortfall
    if shortfall is None:
        return
    made = shortfall(item)
    if made.model and made.filled:
        messages.info(
            request,
            f"The model gave {made.made - made.filled} usable {made.things} of {made.asked}; "
            f"{made.filled} more were cut from your documents' text (marked “from the text”).",
        )
    if made.made < made.asked:
        messages.info(
            request,
            f"Only {made.made} {made.things} of {made.asked} could be made: the documents in this "
            "scope hold no more that fit. Add documents or widen the scope.",
        )


@require_GET
@login_required
def generation_status(request: HttpRequest, kind: str, pk: int) -> HttpResponse:
    """The card of an item being made, asked for again by itself every 2 s; once the item is
    ready the page reloads into it (HX-Refresh), and without htmx this is the item's page."""
    item = own_generated(request, kind, pk)
    if not request.htmx:
        return redirect(kinds.get(kind).url(item))
    response = render_generating(request, kind, item)
    if item.status == READY:
        report_made(request, kind, item)
        response["HX-Refresh"] = "true"
    return response


@require_POST
@login_required
@rate_limited("RATE_LIMIT_GENERATION", "study generations")
def generation_retry(request: HttpRequest, kind: str, pk: int) -> HttpResponse:
    """Make a failed item again, in a worker."""
    item = own_generated(request, kind, pk)
    if item.status == FAILED and type(item).objects.restart(item.pk):
        tasks.enqueue(kind, item.pk)
    return redirect(kinds.get(kind).url(item))
