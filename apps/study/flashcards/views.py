"""Flashcard pages: the tab (decks, due cards, generate, make by hand, import a CSV), a deck
with its cards, studying with spaced repetition, exports."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_POST

from apps.study import events
from apps.study.flashcards import anki, csv_files, decks, generation, scheduling
from apps.study.flashcards.forms import (
    CardForm,
    CsvImportForm,
    DeckGenerateForm,
    DeckTitleForm,
    NewDeckForm,
    ReviewForm,
)
from apps.study.flashcards.models import Card, Deck
from apps.study.views import download, generated, report_shortfall, study_tab

EXPORTS = {"csv": ("text/csv", csv_files.export_csv), "apkg": ("application/zip", anki.export_apkg)}


def render_deck_list(
    request: HttpRequest,
    new_form=None,
    import_form=None,
    generate_form=None,
    error: str = "",
    status: int = 200,
):
    decks = Deck.objects.visible_to(request.user).with_counts(timezone.now())
    context = {
        "decks": decks,
        "due_total": sum(deck.due_count for deck in decks),
        "new_form": new_form or NewDeckForm(),
        "import_form": import_form or CsvImportForm(),
        "generate_form": generate_form or DeckGenerateForm(user=request.user),
        "error": error,
    }
    return study_tab(request, "study/flashcards/list.html", context, status)


@require_GET
@login_required
def deck_list(request: HttpRequest) -> HttpResponse:
    return render_deck_list(request)


@require_POST
@login_required
def deck_generate(request: HttpRequest) -> HttpResponse:
    form = DeckGenerateForm(request.POST, user=request.user)
    error = ""
    if form.is_valid():
        asked = form.cleaned_data["num_cards"]
        deck, error = generated(
            lambda: generation.generate_deck(
                request.user, num_cards=asked, scope=form.scope, now=timezone.now()
            )
        )
        if deck is not None:
            report_shortfall(request, deck.cards.count(), asked, "cards")
            return redirect("study:deck", pk=deck.pk)
    return render_deck_list(request, generate_form=form, error=error, status=400)


@require_POST
@login_required
def deck_create(request: HttpRequest) -> HttpResponse:
    form = NewDeckForm(request.POST)
    if not form.is_valid():
        return render_deck_list(request, new_form=form, status=400)
    deck = decks.create_deck(
        request.user, form.cleaned_data["title"], [form.cleaned_data], now=timezone.now()
    )
    events.deck_created(request.user)
    return redirect("study:deck", pk=deck.pk)


@require_POST
@login_required
def deck_import(request: HttpRequest) -> HttpResponse:
    form = CsvImportForm(request.POST, request.FILES)
    if form.is_valid():
        upload = form.cleaned_data["file"]
        try:
            if upload.size > csv_files.MAX_CSV_BYTES:
                raise decks.DeckError("The CSV file is larger than 1 MB.")
            items = csv_files.parse_csv(upload.read())
        except decks.DeckError as error:
            form.add_error("file", str(error))
        else:
            title = upload.name.rsplit(".", 1)[0] or "Imported deck"
            deck = decks.create_deck(request.user, title, items, now=timezone.now())
            events.deck_created(request.user)
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
    template = "study/flashcards/detail.html" + (f"#{partial}" if partial else "")
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
    decks.add_card(deck, **form.cleaned_data, now=timezone.now())
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
    scheduling.record_flip(card)
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
    scheduling.review(card, form.cleaned_data["outcome"], now=now)
    events.card_flipped(request.user, mastered_deck=not was_mastered and deck.is_mastered())
    in_queue = request.POST.get("queue") == "due"
    cards = Card.objects.visible_to(request.user) if in_queue else deck.cards.all()
    practise = request.POST.get("mode") == "all"
    next_card = scheduling.next_card(cards, now=now, after=card if practise else None)
    return render_study(request, None if in_queue else deck, next_card)


@require_GET
@login_required
def deck_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    deck = get_object_or_404(Deck.objects.visible_to(request.user), pk=pk)
    return download(deck, fmt, EXPORTS, slugify(deck.title)[:80] or f"deck-{deck.pk}")
