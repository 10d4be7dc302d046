"""Study Hub pages: the quiz and workshop tabs, playing and reviewing quizzes, reading lessons."""

from contextlib import suppress

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from apps.study import events, generator, quiz, workshop
from apps.study.forms import QuizForm, WorkshopForm
from apps.study.models import Attempt, Lesson, Quiz, Workshop, sources_for
from apps.vault.models import Chunk, Document


def _announce(request: HttpRequest, badges: list) -> None:
    for badge in badges:
        messages.success(request, f"New badge: {getattr(badge, 'name', badge)}")


# --- Quizzes ----------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@login_required
def quizzes(request: HttpRequest) -> HttpResponse:
    form = QuizForm(request.POST or None, user=request.user)
    error = ""
    if request.method == "POST" and form.is_valid():
        try:
            made = quiz.create_quiz(
                request.user,
                num_questions=form.cleaned_data["num_questions"],
                difficulty=form.cleaned_data["difficulty"],
                types=form.cleaned_data["types"],
                scope=form.scope,
            )
        except (generator.GenerationError, ValueError) as problem:
            error = str(problem)
        else:
            if made.questions.count() < made.requested:
                messages.info(
                    request,
                    f"The model gave {made.questions.count()} usable questions "
                    f"of {made.requested}; the rest were malformed and left out.",
                )
            return redirect("study:quiz_play", made.pk)
    context = {
        "form": form,
        "error": error,
        "quizzes": Quiz.objects.visible_to(request.user).prefetch_related("attempts"),
        "has_documents": Document.objects.visible_to(request.user).exists(),
    }
    status = 400 if request.method == "POST" else 200
    return render(request, "study/quizzes.html", context, status=status)


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
    return _download(quiz_.pk, "quiz", fmt, quiz.as_markdown(quiz_), lambda: quiz.as_pdf(quiz_))


def _download(pk: int, kind: str, fmt: str, text: str, make_pdf) -> HttpResponse:
    if fmt not in ("md", "pdf"):
        raise Http404("Exports are Markdown (.md) or PDF (.pdf).")
    if fmt == "md":
        response = HttpResponse(text, content_type="text/markdown; charset=utf-8")
    else:
        response = HttpResponse(make_pdf(), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{kind}-{pk}.{fmt}"'
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
        try:
            made = workshop.create_workshop(
                request.user, num_lessons=form.cleaned_data["num_lessons"], scope=form.scope
            )
        except (generator.GenerationError, ValueError) as problem:
            error = str(problem)
        else:
            _announce(request, events.outline_created(request.user))
            return redirect("study:lesson", made.pk, 1)
    context = {
        "form": form,
        "error": error,
        "workshops": Workshop.objects.visible_to(request.user).prefetch_related("lessons"),
        "has_documents": Document.objects.visible_to(request.user).exists(),
    }
    status = 400 if request.method == "POST" else 200
    return render(request, "study/workshops.html", context, status=status)


def _lesson(request: HttpRequest, pk: int, number: int) -> Lesson:
    workshop_ = get_object_or_404(Workshop.objects.visible_to(request.user), pk=pk)
    return get_object_or_404(workshop_.lessons.select_related("workshop"), number=number)


def _lesson_page(request: HttpRequest, lesson: Lesson, template: str) -> HttpResponse:
    workshop_ = lesson.workshop
    context = {
        "workshop": workshop_,
        "lesson": lesson,
        "lessons": workshop_.lessons.all(),
        "body": mark_safe(workshop.render_markdown(lesson.content)),  # sanitised by nh3
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
    return _download(
        workshop_.pk,
        "workshop",
        fmt,
        workshop.as_markdown(workshop_),
        lambda: workshop.as_pdf(workshop_),
    )
