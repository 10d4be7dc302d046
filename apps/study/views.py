from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from apps.vault.models import Document


@require_GET
@login_required
def index(request: HttpRequest) -> HttpResponse:
    has_documents = Document.objects.visible_to(request.user).exists()
    return render(request, "study/index.html", {"has_documents": has_documents})


# --- Flashcards and mindmaps ---------------------------------------------------------------
# Decks (list, hand-made, CSV import, edit, study with spaced repetition, export) and
# mindmaps (from an outline, drawn on the server, dragged, folded, exported).

from django.contrib import messages  # noqa: E402
from django.http import Http404  # noqa: E402
from django.shortcuts import get_object_or_404, redirect  # noqa: E402
from django.urls import reverse  # noqa: E402
from django.utils import timezone  # noqa: E402
from django.utils.text import slugify  # noqa: E402
from django.views.decorators.http import require_POST  # noqa: E402

from apps.study import flashcards  # noqa: E402
from apps.study import mindmap as drawing  # noqa: E402
from apps.study.forms import (  # noqa: E402
    CardForm,
    CsvImportForm,
    DeckTitleForm,
    MindmapLayoutForm,
    MindmapOutlineForm,
    NewDeckForm,
    NodeForm,
    NodePositionForm,
    ReviewForm,
)
from apps.study.models import Card, Deck, Mindmap  # noqa: E402


def render_deck_list(request: HttpRequest, new_form=None, import_form=None, status: int = 200):
    decks = Deck.objects.visible_to(request.user).with_counts(timezone.now())
    context = {
        "decks": decks,
        "due_total": sum(deck.due_count for deck in decks),
        "new_form": new_form or NewDeckForm(),
        "import_form": import_form or CsvImportForm(),
    }
    return render(request, "study/flashcards/decks.html", context, status=status)


@require_GET
@login_required
def deck_list(request: HttpRequest) -> HttpResponse:
    return render_deck_list(request)


@require_POST
@login_required
def deck_create(request: HttpRequest) -> HttpResponse:
    form = NewDeckForm(request.POST)
    if not form.is_valid():
        return render_deck_list(request, new_form=form, status=400)
    deck = flashcards.create_deck(
        request.user, form.cleaned_data["title"], [form.cleaned_data], now=timezone.now()
    )
    flashcards.record_progress("record_deck_created", request.user)
    return redirect("study:deck", pk=deck.pk)


@require_POST
@login_required
def deck_import(request: HttpRequest) -> HttpResponse:
    form = CsvImportForm(request.POST, request.FILES)
    if form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            if upload.size > flashcards.MAX_CSV_BYTES:
                raise flashcards.DeckError("The CSV file is larger than 1 MB.")
            items = flashcards.parse_csv(upload.read())
        except flashcards.DeckError as error:
            form.add_error("file", str(error))
        else:
            title = upload.name.rsplit(".", 1)[0] or "Imported deck"
            deck = flashcards.create_deck(request.user, title, items, now=timezone.now())
            flashcards.record_progress("record_deck_created", request.user)
            messages.success(request, f"Imported {deck.cards.count()} cards.")
            return redirect("study:deck", pk=deck.pk)
    return render_deck_list(request, import_form=form, status=400)


def render_deck(request: HttpRequest, deck: Deck, partial: str = "", status: int = 200, **extra):
    mastered, total = deck.mastery()
    context = {
        "deck": deck,
        "cards": deck.cards.all(),
        "mastered": mastered,
        "total": total,
        "due_count": deck.cards.due(timezone.now()).count(),
        "title_form": extra.pop("title_form", None) or DeckTitleForm(initial={"title": deck.title}),
        "card_form": extra.pop("card_form", None) or CardForm(),
        **extra,
    }
    template = "study/flashcards/deck.html" + (f"#{partial}" if partial else "")
    return render(request, template, context, status=status)


@require_GET
@login_required
def deck_detail(request: HttpRequest, pk: int) -> HttpResponse:
    deck = get_object_or_404(Deck.objects.visible_to(request.user), pk=pk)
    return render_deck(request, deck)


@require_POST
@login_required
def deck_rename(request: HttpRequest, pk: int) -> HttpResponse:
    deck = get_object_or_404(Deck.objects.visible_to(request.user), pk=pk)
    form = DeckTitleForm(request.POST)
    if not form.is_valid():
        return render_deck(
            request, deck, "deck-head" if request.htmx else "", status=400, title_form=form
        )
    deck.title = form.cleaned_data["title"]
    deck.save(update_fields=["title", "updated_at"])
    if request.htmx:
        return render_deck(request, deck, "deck-head")
    return redirect("study:deck", pk=deck.pk)


@require_POST
@login_required
def deck_delete(request: HttpRequest, pk: int) -> HttpResponse:
    deck = get_object_or_404(Deck.objects.visible_to(request.user), pk=pk)
    deck.delete()
    messages.success(request, f"Deleted the deck “{deck.title}”.")
    return redirect("study:decks")


@require_POST
@login_required
def card_add(request: HttpRequest, pk: int) -> HttpResponse:
    deck = get_object_or_404(Deck.objects.visible_to(request.user), pk=pk)
    form = CardForm(request.POST)
    if not form.is_valid():
        return render_deck(request, deck, "card-list" if request.htmx else "", 400, card_form=form)
    flashcards.add_card(deck, **form.cleaned_data, now=timezone.now())
    return render_deck(request, deck, "card-list") if request.htmx else redirect(deck_url(deck))


def deck_url(deck: Deck) -> str:
    return reverse("study:deck", kwargs={"pk": deck.pk})


@require_POST
@login_required
def card_edit(request: HttpRequest, pk: int, card_pk: int) -> HttpResponse:
    card = get_object_or_404(Card.objects.visible_to(request.user), deck_id=pk, pk=card_pk)
    form = CardForm(request.POST)
    if not form.is_valid():
        errors = {card.pk: form}
        return render_deck(
            request, card.deck, "card-list" if request.htmx else "", 400, edit_errors=errors
        )
    card.front, card.back = form.cleaned_data["front"], form.cleaned_data["back"]
    card.save(update_fields=["front", "back"])
    if request.htmx:
        return render_deck(request, card.deck, "card-list")
    return redirect(deck_url(card.deck))


@require_POST
@login_required
def card_delete(request: HttpRequest, pk: int, card_pk: int) -> HttpResponse:
    card = get_object_or_404(Card.objects.visible_to(request.user), deck_id=pk, pk=card_pk)
    deck = card.deck
    card.delete()
    return render_deck(request, deck, "card-list") if request.htmx else redirect(deck_url(deck))


def render_study(request: HttpRequest, deck: Deck | None, card: Card | None, status: int = 200):
    """The study page for one deck, or for the due queue across decks when `deck` is None."""
    now = timezone.now()
    cards = deck.cards.all() if deck else Card.objects.visible_to(request.user)
    mastered, total = deck.mastery() if deck else (None, None)
    upcoming = cards.filter(due_at__gt=now).order_by("due_at").first()
    context = {
        "deck": deck,
        "card": card,
        "mastered": mastered,
        "total": total,
        "due_count": cards.due(now).count(),
        "next_due": upcoming.due_at if upcoming else None,
        "practise": request.GET.get("mode") == "all" or request.POST.get("mode") == "all",
    }
    template = "study/flashcards/study.html" + ("#study-card" if request.htmx else "")
    return render(request, template, context, status=status)


@require_GET
@login_required
def deck_study(request: HttpRequest, pk: int) -> HttpResponse:
    deck = get_object_or_404(Deck.objects.visible_to(request.user), pk=pk)
    now = timezone.now()
    card = deck.cards.due(now).first()
    if card is None and request.GET.get("mode") == "all":
        card = deck.cards.first()
    return render_study(request, deck, card)


@require_GET
@login_required
def due_study(request: HttpRequest) -> HttpResponse:
    card = Card.objects.visible_to(request.user).due(timezone.now()).first()
    return render_study(request, None, card)


@require_POST
@login_required
def card_flip(request: HttpRequest, pk: int, card_pk: int) -> HttpResponse:
    card = get_object_or_404(Card.objects.visible_to(request.user), deck_id=pk, pk=card_pk)
    flashcards.record_flip(card)
    return HttpResponse(status=204)


@require_POST
@login_required
def card_review(request: HttpRequest, pk: int, card_pk: int) -> HttpResponse:
    """Answer a card ("got it" / "review") and show the next one of the deck or the queue."""
    card = get_object_or_404(Card.objects.visible_to(request.user), deck_id=pk, pk=card_pk)
    form = ReviewForm(request.POST)
    if not form.is_valid():
        return HttpResponse("Choose “got it” or “review”.", status=400)
    deck = card.deck
    was_mastered = deck.is_mastered()
    now = timezone.now()
    flashcards.review(card, form.cleaned_data["outcome"], now=now)
    flashcards.record_progress(
        "record_card_flip", request.user, mastered_deck=not was_mastered and deck.is_mastered()
    )
    in_queue = request.POST.get("queue") == "due"
    cards = Card.objects.visible_to(request.user) if in_queue else deck.cards.all()
    practise = request.POST.get("mode") == "all"
    next_card = flashcards.next_card(cards, now=now, after=card if practise else None)
    return render_study(request, None if in_queue else deck, next_card)


@require_GET
@login_required
def deck_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    deck = get_object_or_404(Deck.objects.visible_to(request.user), pk=pk)
    filename = slugify(deck.title)[:80] or f"deck-{deck.pk}"
    if fmt == "csv":
        response = HttpResponse(flashcards.export_csv(deck), content_type="text/csv")
    elif fmt == "apkg":
        response = HttpResponse(flashcards.export_apkg(deck), content_type="application/zip")
    else:
        raise Http404("No such export.")
    response["Content-Disposition"] = f'attachment; filename="{filename}.{fmt}"'
    return response


# Mindmaps


def render_mindmap_list(request: HttpRequest, form=None, status: int = 200) -> HttpResponse:
    mindmaps = Mindmap.objects.visible_to(request.user)
    context = {"mindmaps": mindmaps, "form": form or MindmapOutlineForm()}
    return render(request, "study/mindmaps/list.html", context, status=status)


@require_GET
@login_required
def mindmap_list(request: HttpRequest) -> HttpResponse:
    return render_mindmap_list(request)


@require_POST
@login_required
def mindmap_create(request: HttpRequest) -> HttpResponse:
    form = MindmapOutlineForm(request.POST)
    if form.is_valid():
        try:
            tree = drawing.parse_outline(
                form.cleaned_data["outline"], form.cleaned_data["title"] or "Mindmap"
            )
        except drawing.MindmapError as error:
            form.add_error("outline", str(error))
        else:
            title = form.cleaned_data["title"] or tree["title"]
            mindmap = Mindmap.objects.create(owner=request.user, title=title[:200], tree=tree)
            flashcards.record_progress("record_mindmap_created", request.user)
            return redirect("study:mindmap", pk=mindmap.pk)
    return render_mindmap_list(request, form, status=400)


def render_mindmap(request: HttpRequest, mindmap: Mindmap, status: int = 200) -> HttpResponse:
    context = {
        "mindmap": mindmap,
        "svg": drawing.render_svg(mindmap),
        "layouts": Mindmap.Layout.choices,
        "export_formats": ("svg", "png", "pdf", "md"),
    }
    template = "study/mindmaps/detail.html" + ("#mindmap-canvas" if request.htmx else "")
    return render(request, template, context, status=status)


def own_mindmap(request: HttpRequest, pk: int) -> Mindmap:
    return get_object_or_404(Mindmap.objects.visible_to(request.user), pk=pk)


@require_GET
@login_required
def mindmap_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return render_mindmap(request, own_mindmap(request, pk))


@require_POST
@login_required
def mindmap_layout(request: HttpRequest, pk: int) -> HttpResponse:
    mindmap = own_mindmap(request, pk)
    form = MindmapLayoutForm(request.POST)
    if not form.is_valid():
        return HttpResponse("Choose a layout: lr, tb or radial.", status=400)
    mindmap.layout = form.cleaned_data["layout"]
    mindmap.save(update_fields=["layout", "updated_at"])
    return render_mindmap(request, mindmap)


@require_POST
@login_required
def mindmap_reset(request: HttpRequest, pk: int) -> HttpResponse:
    mindmap = own_mindmap(request, pk)
    mindmap.reset_layout()
    return render_mindmap(request, mindmap)


@require_POST
@login_required
def mindmap_toggle(request: HttpRequest, pk: int) -> HttpResponse:
    mindmap = own_mindmap(request, pk)
    form = NodeForm(request.POST)
    try:
        mindmap.toggle(form.data.get("node", ""))
    except KeyError:
        return HttpResponse("No such node in this mindmap.", status=400)
    return render_mindmap(request, mindmap)


@require_POST
@login_required
def mindmap_move(request: HttpRequest, pk: int) -> HttpResponse:
    mindmap = own_mindmap(request, pk)
    form = NodePositionForm(request.POST)
    if not form.is_valid():
        return HttpResponse("A move needs a node, a layout and x, y within ±100000.", status=400)
    data = form.cleaned_data
    try:
        mindmap.move_node(data["node"], data["layout"], data["x"], data["y"])
    except KeyError:
        return HttpResponse("No such node in this mindmap.", status=400)
    return HttpResponse(status=204)


@require_POST
@login_required
def mindmap_rename(request: HttpRequest, pk: int) -> HttpResponse:
    mindmap = own_mindmap(request, pk)
    form = DeckTitleForm(request.POST)
    if form.is_valid():
        mindmap.title = form.cleaned_data["title"]
        mindmap.save(update_fields=["title", "updated_at"])
    else:
        messages.error(request, "Give the mindmap a name.")
    return redirect("study:mindmap", pk=mindmap.pk)


@require_POST
@login_required
def mindmap_delete(request: HttpRequest, pk: int) -> HttpResponse:
    mindmap = own_mindmap(request, pk)
    mindmap.delete()
    messages.success(request, f"Deleted the mindmap “{mindmap.title}”.")
    return redirect("study:mindmaps")


EXPORTS = {
    "svg": ("image/svg+xml", lambda m: drawing.render_svg(m).encode()),
    "png": ("image/png", drawing.to_png),
    "pdf": ("application/pdf", drawing.to_pdf),
    "md": ("text/markdown; charset=utf-8", lambda m: drawing.outline(m.tree).encode()),
}


@require_GET
@login_required
def mindmap_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    mindmap = own_mindmap(request, pk)
    if fmt not in EXPORTS:
        raise Http404("No such export.")
    content_type, make = EXPORTS[fmt]
    response = HttpResponse(make(mindmap), content_type=content_type)
    name = slugify(mindmap.title)[:80] or f"mindmap-{mindmap.pk}"
    response["Content-Disposition"] = f'attachment; filename="{name}.{fmt}"'
    flashcards.record_progress("record_mindmap_exported", request.user)
    return response


# --- end of flashcards and mindmaps ---------------------------------------------------------
