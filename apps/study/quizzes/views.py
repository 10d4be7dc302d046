"""Quiz pages: the tab (list and generate), playing one question or all at once, review."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from apps.study import events
from apps.study.quizzes import exports, generation
from apps.study.quizzes.forms import QuizForm
from apps.study.quizzes.models import Attempt, Quiz
from apps.study.sources import sources_for
from apps.study.views import (
    MARKDOWN,
    announce,
    download,
    generated,
    report_shortfall,
    study_tab,
)

EXPORTS = {"md": (MARKDOWN, exports.as_markdown), "pdf": ("application/pdf", exports.as_pdf)}


@require_http_methods(["GET", "POST"])
@login_required
def quizzes(request: HttpRequest) -> HttpResponse:
    form = QuizForm(request.POST or None, user=request.user)
    error = ""
    if request.method == "POST" and form.is_valid():
        made, error = generated(
            lambda: generation.create_quiz(
                request.user,
                num_questions=form.cleaned_data["num_questions"],
                difficulty=form.cleaned_data["difficulty"],
                types=form.cleaned_data["types"],
                scope=form.scope,
            )
        )
        if made is not None:
            report_shortfall(request, made.questions.count(), made.requested, "questions")
            return redirect("study:quiz_play", made.pk)
    context = {
        "form": form,
        "error": error,
        "quizzes": Quiz.objects.visible_to(request.user).prefetch_related("attempts"),
    }
    status = 400 if request.method == "POST" else 200
    return study_tab(request, "study/quizzes/list.html", context, status)


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
    template = "study/quizzes/play.html#quiz-player" if request.htmx else "study/quizzes/play.html"
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
    announce(request, events.quiz_completed(attempt))
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
    return render(request, "study/quizzes/review.html", context)


@require_GET
@login_required
def quiz_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    quiz_ = _quiz(request, pk)
    return download(quiz_, fmt, EXPORTS, f"quiz-{quiz_.pk}")
