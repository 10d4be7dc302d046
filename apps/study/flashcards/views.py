"""Flashcard pages: the tab (decks, due cards, generate, make by hand, import Anki or CSV), a deck
with its cards, studying with spaced repetition, exports."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_POST

from apps.accounts.ratelimits import rate_limited
from apps.study import errors, importing, stale
from apps.study.errors import StudyError
from apps.study.flashcards import deck_imports, decks, exports, generation, scheduling
from apps.study.flashcards.forms import (
    CardForm,
    DeckGenerateForm,
    DeckImportForm,
    DeckTitleForm,
    NewDeckForm,
)
from apps.study.flashcards.models import Card, Deck
from apps.study.flashcards.stale import card_text, stale_cards
from apps.study.ownership import get_visible
from apps.study.views import announce, download, generate, render_generating, study_tab


def render_deck_list(
    request: HttpRequest, new_form=None, import_form=None, generate_form=None, status: int = 200
):
    now = timezone.now()
    decks = Deck.objects.visible_to(request.user).settled().with_counts(now)
    context = {
        "decks": decks,
        "due_total": studied(request, None).due_to_learner(now).count(),
        "new_form": new_form or NewDeckForm(),
        "import_form": import_form or DeckImportForm(),
        "generate_form": generate_form or DeckGenerateForm(user=request.user),
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
    if started := generate(request, "deck", form, generation.start_deck, "num_cards"):
        return started
    return render_deck_list(request, generate_form=form, status=errors.PAGE_STATUS)


@require_POST
@login_required
def deck_create(request: HttpRequest) -> HttpResponse:
    form = NewDeckForm(request.POST)
    if form.is_valid():
        try:
            deck, badges = decks.create_deck(
                request.user, form.cleaned_data["title"], [form.cleaned_data], now=timezone.now()
            )
        except StudyError as error:
            errors.show(request, error, form)
        else:
            announce(request, badges)
            return redirect("study:deck-detail", pk=deck.pk)
    return render_deck_list(request, new_form=form, status=errors.PAGE_STATUS)


@require_POST
@login_required
@rate_limited("RATE_LIMIT_UPLOADS", "uploads")
def deck_import(request: HttpRequest) -> HttpResponse:
    """A deck of an Anki package or a CSV file; what was left out is listed."""
    form = DeckImportForm(request.POST, request.FILES)
    if form.is_valid():
        try:
            deck, badges, skipped = deck_imports.import_deck(
                request.user, form.cleaned_data["file"], now=timezone.now()
            )
        except StudyError as error:
            errors.show(request, error, form)
        else:
            announce(request, badges)
            messages.success(request, f"Imported {deck.cards.count()} cards.")
            for sentence in importing.left_out(skipped):
                messages.info(request, sentence)
            return redirect("study:deck-detail", pk=deck.pk)
    return render_deck_list(request, import_form=form, status=errors.PAGE_STATUS)


def studied(request: HttpRequest, deck: Deck | None):
    """The cards the person studies in `deck`, or with no deck in every deck they study (their own
    and those handed out to their class), each with their own memory of it."""
    return (deck.cards if deck else Card.objects.readable_by(request.user)).studied_by(request.user)


def render_deck(request: HttpRequest, deck: Deck, part: str = "", status: int = 200, **extra):
    """The deck's page, or for htmx its `part` ("deck-head", "card-list") when one is named."""
    partial = part if request.htmx else ""
    mastered, total = deck.mastery(request.user)
    owner = deck.owner_id == request.user.pk
    changed = stale_cards(deck) if owner else []  # the owner's to refresh
    # Searching for the new passages only pays where the cards are shown.
    new = (
        stale.passages_now(deck, {c.pk: card_text(c) for c in changed})
        if partial in ("", "card-list")
        else {}
    )
    context = {
        "stale_count": len(changed),
        "deck": deck,
        "rows": [(card, card.pk in new, new.get(card.pk)) for card in deck.cards.all()],
        "mastered": mastered,
        "total": total,
        "due_count": studied(request, deck).due_to_learner(timezone.now()).count(),
        "owner": owner,
        "title_form": DeckTitleForm(initial={"title": deck.title}),
        "card_form": CardForm(),
        **extra,  # the forms sent back with their errors
    }
    template = "study/flashcards/detail.html" + (f"#{partial}" if partial else "")
    return render(request, template, context, status=status)


def render_changed(request: HttpRequest, deck: Deck, part: str) -> HttpResponse:
    """After a change: the changed part for htmx, else the deck's page again."""
    if request.htmx:
        return render_deck(request, deck, part)
    return redirect("study:deck-detail", pk=deck.pk)


@require_GET
@login_required
def deck_detail(request: HttpRequest, pk: int) -> HttpResponse:
    deck = get_visible(Deck.objects.readable_by, request.user, pk=pk)
    deck.settle()
    if not deck.is_ready:
        return render_generating(request, "deck", deck)
    return render_deck(request, deck)


@require_POST
@login_required
def deck_update(request: HttpRequest, pk: int) -> HttpResponse:
    deck = get_visible(Deck.objects.visible_to, request.user, pk=pk)
    form = DeckTitleForm(request.POST)
    if not form.is_valid():
        return render_deck(request, deck, "deck-head", errors.PAGE_STATUS, title_form=form)
    deck.rename(form.cleaned_data["title"])
    return render_changed(request, deck, "deck-head")


@require_POST
@login_required
def card_create(request: HttpRequest, pk: int) -> HttpResponse:
    deck = get_visible(Deck.objects.visible_to, request.user, pk=pk)
    form = CardForm(request.POST)
    if form.is_valid():
        try:
            deck.add_card(form.cleaned_data["front"], form.cleaned_data["back"], now=timezone.now())
        except StudyError as error:
            errors.show(request, error, form)
        else:
            return render_changed(request, deck, "card-list")
    return render_deck(request, deck, "card-list", errors.PAGE_STATUS, card_form=form)


@require_POST
@login_required
def card_update(request: HttpRequest, pk: int, card_pk: int) -> HttpResponse:
    card = get_visible(Card.objects.visible_to, request.user, deck_id=pk, pk=card_pk)
    form = CardForm(request.POST)
    if form.is_valid():
        try:
            card.edit(form.cleaned_data["front"], form.cleaned_data["back"])
        except StudyError as error:  # past the storage quota
            errors.show(request, error, form)
        else:
            return render_changed(request, card.deck, "card-list")
    return render_deck(
        request, card.deck, "card-list", errors.PAGE_STATUS, edit_errors={card.pk: form}
    )


@require_POST
@login_required
def card_delete(request: HttpRequest, pk: int, card_pk: int) -> HttpResponse:
    card = get_visible(Card.objects.visible_to, request.user, deck_id=pk, pk=card_pk)
    deck = card.deck
    card.delete()
    return render_changed(request, deck, "card-list")


def render_study(request: HttpRequest, deck: Deck | None, card: Card | None, status: int = 200):
    """The study page for one deck, or for the due queue across decks when `deck` is None."""
    now = timezone.now()
    cards = studied(request, deck)
    mastered, total = deck.mastery(request.user) if deck else (None, None)
    upcoming = cards.filter(learner_due_at__gt=now).order_by("learner_due_at").first()
    context = {
        "deck": deck,
        "card": card,
        "mastered": mastered,
        "total": total,
        "due_count": cards.due_to_learner(now).count(),
        "next_due": upcoming.learner_due_at if upcoming else None,
        "practise": request.GET.get("mode") == "all" or request.POST.get("mode") == "all",
    }
    template = "study/flashcards/study.html" + ("#study-card" if request.htmx else "")
    return render(request, template, context, status=status)


@require_GET
@login_required
def deck_study(request: HttpRequest, pk: int) -> HttpResponse:
    deck = get_visible(Deck.objects.readable_by, request.user, pk=pk)
    now = timezone.now()
    card = studied(request, deck).due_to_learner(now).first()
    if card is None and request.GET.get("mode") == "all":
        card = deck.cards.first()
    return render_study(request, deck, card)


@require_GET
@login_required
def deck_due(request: HttpRequest) -> HttpResponse:
    card = studied(request, None).due_to_learner(timezone.now()).first()
    return render_study(request, None, card)


@require_POST
@login_required
def card_flip(request: HttpRequest, pk: int, card_pk: int) -> HttpResponse:
    card = get_visible(
        Card.objects.select_related("deck").readable_by, request.user, deck_id=pk, pk=card_pk
    )
    scheduling.record_flip(card, request.user)
    return HttpResponse(status=204)


@require_POST
@login_required
def card_review(request: HttpRequest, pk: int, card_pk: int) -> HttpResponse:
    """Answer a card ("got it" / "review") and show the next one of the deck or the queue."""
    card = get_visible(
        Card.objects.select_related("deck").readable_by, request.user, deck_id=pk, pk=card_pk
    )
    in_queue = request.POST.get("queue") == "due"
    deck = None if in_queue else card.deck
    now = timezone.now()
    try:
        badges = scheduling.review(card, request.POST.get("outcome"), now=now, by=request.user)
    except StudyError as error:
        errors.show(request, error)
        return render_study(request, deck, card, status=errors.PAGE_STATUS)
    announce(request, badges)
    cards = studied(request, deck)
    practise = request.POST.get("mode") == "all"
    next_card = scheduling.next_card(cards, now=now, after=card if practise else None)
    return render_study(request, deck, next_card)


@require_GET
@login_required
def deck_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    deck = get_visible(Deck.objects.visible_to, request.user, pk=pk)
    return download(deck, fmt, exports.FORMATS, slugify(deck.title)[:80] or f"deck-{deck.pk}")
