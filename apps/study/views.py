"""Study Hub pages: the quiz and workshop tabs, playing and reviewing quizzes, reading lessons."""

from collections.abc import Callable
from contextlib import suppress
from typing import TypeVar

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from apps.llm.rendering import render_markdown
from apps.study import events, flashcards, generator, quiz, workshop
from apps.study import mindmap as drawing
from apps.study.forms import (
    CardForm,
    CsvImportForm,
    DeckGenerateForm,
    DeckTitleForm,
    MindmapGenerateForm,
    MindmapLayoutForm,
    MindmapOutlineForm,
    NewDeckForm,
    NodeForm,
    NodePositionForm,
    QuizForm,
    ReviewForm,
    WorkshopForm,
)
from apps.study.models import Attempt, Card, Deck, Lesson, Mindmap, Quiz, Workshop, sources_for
from apps.vault.models import Chunk, Document

T = TypeVar("T")


def _announce(request: HttpRequest, badges: list) -> None:
    for badge in badges:
        messages.success(request, f"New badge: {getattr(badge, 'name', badge)}")


def _generated(make: Callable[[], T]) -> tuple[T | None, str]:
    """What a generator made, or the message to show in its place.

    Every generator raises GenerationError (empty scope, model down, nothing usable) or a
    ValueError for a size it does not make: the person's to act on, never a 500.
    """
    try:
        return make(), ""
    except (generator.GenerationError, ValueError) as problem:
        return None, str(problem)


def _report_shortfall(request: HttpRequest, made: int, asked: int, things: str) -> None:
    if made < asked:
        messages.info(
            request,
            f"The model gave {made} usable {things} of {asked}; "
            "the rest were malformed and left out.",
        )


def _study_tab(request: HttpRequest, template: str, context: dict, status: int) -> HttpResponse:
    """A Study Hub tab; its generate form needs to know whether there is anything to use."""
    context["has_documents"] = Document.objects.visible_to(request.user).exists()
    return render(request, template, context, status=status)


# --- Quizzes ----------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@login_required
def quizzes(request: HttpRequest) -> HttpResponse:
    form = QuizForm(request.POST or None, user=request.user)
    error = ""
    if request.method == "POST" and form.is_valid():
        made, error = _generated(
            lambda: quiz.create_quiz(
                request.user,
                num_questions=form.cleaned_data["num_questions"],
                difficulty=form.cleaned_data["difficulty"],
                types=form.cleaned_data["types"],
                scope=form.scope,
            )
        )
        if made is not None:
            _report_shortfall(request, made.questions.count(), made.requested, "questions")
            return redirect("study:quiz_play", made.pk)
    context = {
        "form": form,
        "error": error,
        "quizzes": Quiz.objects.visible_to(request.user).prefetch_related("attempts"),
    }
    status = 400 if request.method == "POST" else 200
    return _study_tab(request, "study/quizzes.html", context, status)


def _quiz(request: HttpRequest, pk: int) -> Quiz:
    return get_object_or_404(Quiz.objects.visible_to(request.user), pk=pk)


def _player(request: HttpRequest, quiz_: Quiz, attempt: Attempt) -> HttpResponse:
    questions = list(quiz_.questions.all())
    one_at_a_time = request.GET.get("mode", request.POST.get("mode", "one")) != "all"
    current = min(attempt.current, len(questions) - 1)
    answers = (list(attempt.answers) + [None] * len(questions))[: len(questions)]
    context = {
        "quiz": quiz_,
        "attempt": attempt,
        "mode": "one" if one_at_a_time else "all",
        "rows": list(zip(questions, answers, strict=True)),
        "current": current,
        "question": questions[current],
        "chosen": answers[current],
        "answered": sum(answer is not None for answer in answers),
        "is_last": current == len(questions) - 1,
    }
    template = "study/quiz_play.html#quiz-player" if request.htmx else "study/quiz_play.html"
    return render(request, template, context)


@require_GET
@login_required
def quiz_play(request: HttpRequest, pk: int) -> HttpResponse:
    """Play the quiz, resuming the unfinished attempt if there is one."""
    quiz_ = _quiz(request, pk)
    if not quiz_.questions.exists():
        raise Http404("This quiz has no questions.")
    return _player(request, quiz_, quiz_.start_attempt())


@require_POST
@login_required
def quiz_answer(request: HttpRequest, pk: int) -> HttpResponse:
    """Save one answer (so a refresh loses nothing) and move to the asked-for question."""
    quiz_ = _quiz(request, pk)
    attempt = quiz_.start_attempt()
    try:
        position = int(request.POST.get("position", ""))
        choice = request.POST.get("choice")
        attempt.answer(position, int(choice) if choice not in (None, "") else None)
    except ValueError:
        return HttpResponse("That answer does not fit this quiz.", status=400)
    go = request.POST.get("go", "")
    if go.lstrip("-").isdigit():
        attempt.current = max(0, min(int(go), quiz_.questions.count() - 1))
        attempt.save(update_fields=["current"])
    if request.POST.get("save_only"):
        return HttpResponse(status=204)
    if request.htmx:
        return _player(request, quiz_, attempt)
    mode = request.POST.get("mode", "one")
    return redirect(f"{reverse('study:quiz_play', args=[pk])}?mode={mode}")


@require_POST
@login_required
def quiz_submit(request: HttpRequest, pk: int) -> HttpResponse:
    quiz_ = _quiz(request, pk)
    attempt = quiz_.start_attempt()
    answers = list(attempt.answers)
    for position, question in enumerate(quiz_.questions.all()):
        posted = request.POST.get(f"q{position}", "")
        if request.POST.get("position") == str(position):  # the one-at-a-time form
            posted = request.POST.get("choice", "")
        if posted.isdigit() and int(posted) < len(question.options):
            answers[position] = int(posted)
    attempt.submit(answers)
    _announce(request, events.quiz_completed(attempt))
    return redirect("study:quiz_review", pk, attempt.pk)


@require_POST
@login_required
def quiz_retake(request: HttpRequest, pk: int) -> HttpResponse:
    quiz_ = _quiz(request, pk)
    quiz_.attempts.filter(submitted_at__isnull=True).delete()
    quiz_.start_attempt()
    return redirect("study:quiz_play", pk)


@require_GET
@login_required
def quiz_review(request: HttpRequest, pk: int, attempt_pk: int) -> HttpResponse:
    quiz_ = _quiz(request, pk)
    attempt = get_object_or_404(quiz_.attempts, pk=attempt_pk, submitted_at__isnull=False)
    rows = [
        (question, chosen, right, sources_for(request.user, question.chunk_ids))
        for question, chosen, right in attempt.results()
    ]
    context = {"quiz": quiz_, "attempt": attempt, "rows": rows}
    return render(request, "study/quiz_review.html", context)


@require_GET
@login_required
def quiz_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    quiz_ = _quiz(request, pk)
    return _export(quiz_, fmt, QUIZ_EXPORTS, f"quiz-{quiz_.pk}")


MARKDOWN = "text/markdown; charset=utf-8"
QUIZ_EXPORTS = {"md": (MARKDOWN, quiz.as_markdown), "pdf": ("application/pdf", quiz.as_pdf)}
WORKSHOP_EXPORTS = {
    "md": (MARKDOWN, workshop.as_markdown),
    "pdf": ("application/pdf", workshop.as_pdf),
}


def _export(
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
def source(request: HttpRequest, chunk_pk: int) -> HttpResponse:
    """The excerpt a question or lesson was built from, with its document and page."""
    visible = Document.objects.visible_to(request.user)
    chunk = get_object_or_404(Chunk.objects.select_related("document"), pk=chunk_pk,
                              document__in=visible)  # fmt: skip
    return render(request, "study/source.html", {"chunk": chunk})


# --- Workshops --------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@login_required
def workshops(request: HttpRequest) -> HttpResponse:
    form = WorkshopForm(request.POST or None, user=request.user)
    error = ""
    if request.method == "POST" and form.is_valid():
        made, error = _generated(
            lambda: workshop.create_workshop(
                request.user, num_lessons=form.cleaned_data["num_lessons"], scope=form.scope
            )
        )
        if made is not None:
            _announce(request, events.outline_created(request.user))
            return redirect("study:lesson", made.pk, 1)
    context = {
        "form": form,
        "error": error,
        "workshops": Workshop.objects.visible_to(request.user).prefetch_related("lessons"),
    }
    status = 400 if request.method == "POST" else 200
    return _study_tab(request, "study/workshops.html", context, status)


def _lesson(request: HttpRequest, pk: int, number: int) -> Lesson:
    workshop_ = get_object_or_404(Workshop.objects.visible_to(request.user), pk=pk)
    return get_object_or_404(workshop_.lessons.select_related("workshop"), number=number)


def _lesson_page(request: HttpRequest, lesson: Lesson, template: str) -> HttpResponse:
    workshop_ = lesson.workshop
    context = {
        "workshop": workshop_,
        "lesson": lesson,
        "lessons": workshop_.lessons.all(),
        "body": render_markdown(lesson.content),
        "sources": sources_for(request.user, lesson.chunk_ids),
        "next": workshop_.lessons.filter(number=lesson.number + 1).first(),
        "done": workshop_.progress[0],
    }
    return render(request, template, context)


@require_GET
@login_required
def lesson(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Read a lesson; one not written yet is written right after the page arrives."""
    return _lesson_page(request, _lesson(request, pk, number), "study/lesson.html")


@require_POST
@login_required
def lesson_write(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    lesson_ = _lesson(request, pk, number)
    # A failure is stored on the lesson; the partial shows it with a retry button.
    with suppress(generator.GenerationError):
        workshop.write_lesson(lesson_)
    return _lesson_page(request, lesson_, "study/lesson.html#lesson-body")


@require_POST
@login_required
def lesson_complete(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    lesson_ = _lesson(request, pk, number)
    workshop_ = lesson_.workshop
    was_done = lesson_.completed_at is not None
    finished = workshop_.complete_lesson(lesson_)
    if not was_done:
        _announce(request, events.lesson_completed(request.user))
    if finished:
        _announce(request, events.workshop_completed(request.user))
        messages.success(request, "Workshop complete. Check yourself with the recap quiz.")
    following = workshop_.lessons.filter(number=number + 1).first()
    if following and not finished:
        return redirect("study:lesson", pk, following.number)
    return redirect("study:lesson", pk, number)


@require_POST
@login_required
def workshop_recap(request: HttpRequest, pk: int) -> HttpResponse:
    workshop_ = get_object_or_404(Workshop.objects.visible_to(request.user), pk=pk)
    existing = workshop_.recap_quiz
    if existing:
        return redirect("study:quiz_play", existing.pk)
    try:
        recap = workshop.create_recap_quiz(workshop_)
    except generator.GenerationError as problem:
        messages.error(request, str(problem))
        return redirect("study:lesson", pk, workshop_.lessons.count())
    return redirect("study:quiz_play", recap.pk)


@require_GET
@login_required
def workshop_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    workshop_ = get_object_or_404(Workshop.objects.visible_to(request.user), pk=pk)
    return _export(workshop_, fmt, WORKSHOP_EXPORTS, f"workshop-{workshop_.pk}")


# --- Flashcards and mindmaps ---------------------------------------------------------------
# Decks (list, hand-made, CSV import, edit, study with spaced repetition, export) and
# mindmaps (from an outline, drawn on the server, dragged, folded, exported).


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
    return _study_tab(request, "study/flashcards/decks.html", context, status)


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
        deck, error = _generated(
            lambda: flashcards.generate_deck(
                request.user, num_cards=asked, scope=form.scope, now=timezone.now()
            )
        )
        if deck is not None:
            _report_shortfall(request, deck.cards.count(), asked, "cards")
            return redirect("study:deck", pk=deck.pk)
    return render_deck_list(request, generate_form=form, error=error, status=400)


@require_POST
@login_required
def deck_create(request: HttpRequest) -> HttpResponse:
    form = NewDeckForm(request.POST)
    if not form.is_valid():
        return render_deck_list(request, new_form=form, status=400)
    deck = flashcards.create_deck(
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
            if upload.size > flashcards.MAX_CSV_BYTES:
                raise flashcards.DeckError("The CSV file is larger than 1 MB.")
            items = flashcards.parse_csv(upload.read())
        except flashcards.DeckError as error:
            form.add_error("file", str(error))
        else:
            title = upload.name.rsplit(".", 1)[0] or "Imported deck"
            deck = flashcards.create_deck(request.user, title, items, now=timezone.now())
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
    events.card_flipped(request.user, mastered_deck=not was_mastered and deck.is_mastered())
    in_queue = request.POST.get("queue") == "due"
    cards = Card.objects.visible_to(request.user) if in_queue else deck.cards.all()
    practise = request.POST.get("mode") == "all"
    next_card = flashcards.next_card(cards, now=now, after=card if practise else None)
    return render_study(request, None if in_queue else deck, next_card)


@require_GET
@login_required
def deck_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    deck = get_object_or_404(Deck.objects.visible_to(request.user), pk=pk)
    return _export(deck, fmt, DECK_EXPORTS, slugify(deck.title)[:80] or f"deck-{deck.pk}")


DECK_EXPORTS = {
    "csv": ("text/csv", flashcards.export_csv),
    "apkg": ("application/zip", flashcards.export_apkg),
}


# Mindmaps


def render_mindmap_list(
    request: HttpRequest, form=None, generate_form=None, error: str = "", status: int = 200
) -> HttpResponse:
    context = {
        "mindmaps": Mindmap.objects.visible_to(request.user),
        "form": form or MindmapOutlineForm(),
        "generate_form": generate_form or MindmapGenerateForm(user=request.user),
        "error": error,
    }
    return _study_tab(request, "study/mindmaps/list.html", context, status)


@require_POST
@login_required
def mindmap_generate(request: HttpRequest) -> HttpResponse:
    form = MindmapGenerateForm(request.POST, user=request.user)
    error = ""
    if form.is_valid():
        mindmap, error = _generated(
            lambda: drawing.generate(request.user, form.scope, form.cleaned_data["title"])
        )
        if mindmap is not None:
            return redirect("study:mindmap", pk=mindmap.pk)
    return render_mindmap_list(request, generate_form=form, error=error, status=400)


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
            events.mindmap_created(request.user)
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


MINDMAP_EXPORTS = {
    "svg": ("image/svg+xml", lambda m: drawing.render_svg(m).encode()),
    "png": ("image/png", drawing.to_png),
    "pdf": ("application/pdf", drawing.to_pdf),
    "md": (MARKDOWN, lambda m: drawing.outline(m.tree).encode()),
}


@require_GET
@login_required
def mindmap_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    mindmap = own_mindmap(request, pk)
    name = slugify(mindmap.title)[:80] or f"mindmap-{mindmap.pk}"
    response = _export(mindmap, fmt, MINDMAP_EXPORTS, name)
    events.mindmap_exported(request.user)
    return response


# --- end of flashcards and mindmaps ---------------------------------------------------------
