"""Quiz pages: the tab (list, generate, import), playing one question or all at once, review."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count, Prefetch
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from apps.accounts.ratelimits import rate_limited
from apps.study import errors, importing, stale
from apps.study.classsets.policy import AttemptRefused
from apps.study.errors import InvalidAnswers, InvalidInput, StudyError
from apps.study.ownership import get_visible, is_student
from apps.study.quizzes import bank_import, exports, generation, review
from apps.study.quizzes.forms import QuizForm, QuizImportForm
from apps.study.quizzes.models import Attempt, Quiz
from apps.study.quizzes.seat import Seat
from apps.study.quizzes.stale import question_text, stale_questions
from apps.study.sources import sources_for_each
from apps.study.views import announce, download, generate, render_generating, study_tab


def render_quiz_list(
    request: HttpRequest, form: QuizForm, import_form: QuizImportForm | None = None, status=200
) -> HttpResponse:
    context = {
        "form": form,
        "import_form": import_form or QuizImportForm(),
        "quizzes": Quiz.objects.visible_to(request.user)
        .settled()
        .annotate(question_count=Count("questions"))
        .prefetch_related(Prefetch("attempts", queryset=Attempt.objects.filter(user=request.user))),
        # A student's quizzes handed out by the teacher live on the "From your teacher" tab.
        "from_teacher": (
            Quiz.objects.readable_by(request.user).exclude(owner=request.user).count()
            if is_student(request.user)
            else 0
        ),
    }
    return study_tab(request, "study/quizzes/list.html", context, status)


@require_http_methods(["GET", "POST"])
@login_required
def quiz_list(request: HttpRequest) -> HttpResponse:
    form = QuizForm(request.POST or None, user=request.user)
    asked = ("num_questions", "difficulty", "types")
    if started := generate(request, "quiz", form, generation.start_quiz, *asked):
        return started
    status = errors.PAGE_STATUS if request.method == "POST" else 200
    return render_quiz_list(request, form, status=status)


@require_POST
@login_required
@rate_limited("RATE_LIMIT_UPLOADS", "uploads")
def quiz_import(request: HttpRequest) -> HttpResponse:
    """A quiz of a Moodle XML, GIFT or QTI 2.1 file; what was left out is listed."""
    form = QuizImportForm(request.POST, request.FILES)
    if form.is_valid():
        try:
            quiz, skipped = bank_import.import_quiz(request.user, form.cleaned_data["file"])
        except StudyError as error:
            errors.show(request, error, form)
        else:
            messages.success(request, f"Imported {quiz.questions.count()} questions.")
            for sentence in importing.left_out([vars(s) for s in skipped]):
                messages.info(request, sentence)
            return redirect("study:quiz-edit", quiz.pk)
    form_for_generating = QuizForm(user=request.user)
    return render_quiz_list(request, form_for_generating, form, errors.PAGE_STATUS)


def render_player(
    request: HttpRequest, seat: Seat, attempt: Attempt, status: int = 200
) -> HttpResponse:
    """The player in the asker's order (a student's own shuffle on a class quiz)."""
    paper = seat.paper
    one_at_a_time = request.GET.get("mode", request.POST.get("mode", "one")) != "all"
    current = min(attempt.current, len(paper) - 1)
    answers = paper.to_shown(attempt.answers)
    context = {
        "quiz": seat.quiz,
        "owner": seat.owner,
        "mode": "one" if one_at_a_time else "all",
        "rows": list(zip(paper.questions, answers, strict=True)),
        "current": current,
        "question": paper.questions[current],
        "chosen": answers[current],
        "answered": sum(answer is not None for answer in answers),
        "is_last": current == len(paper) - 1,
        "policy": seat.policy if seat.policy.for_class else None,
        "attempts_left": seat.attempts_left,
        "answers_note": seat.answers_note,
    }
    template = "study/quizzes/play.html#quiz-player" if request.htmx else "study/quizzes/play.html"
    return render(request, template, context, status=status)


def posted_choice(value: str | None) -> int | None:
    """A radio button's value as an option index; nothing chosen is None."""
    if value in (None, ""):
        return None
    try:
        return int(value)
    except ValueError:
        raise InvalidAnswers(f"“{value}” is not an option of this quiz.") from None


def refused(request: HttpRequest, quiz: Quiz, error: AttemptRefused) -> HttpResponse:
    """No attempt to play: say why, and show the latest review (or the class sets)."""
    errors.show(request, error)
    latest = quiz.handed_in_by(request.user).first()
    if latest is not None:
        return redirect("study:attempt-detail", quiz.pk, latest.pk)
    return redirect("study:class-set-list")


@require_GET
@login_required
def quiz_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """Play the quiz, resuming the unfinished attempt if there is one."""
    quiz = get_visible(Quiz.objects.readable_by, request.user, pk=pk)
    quiz.settle()
    if not quiz.is_ready:
        return render_generating(request, "quiz", quiz)
    seat = quiz.seat_for(request.user)
    if not seat.paper:
        raise Http404("This quiz has no questions.")
    try:
        attempt = quiz.start_attempt(seat)
    except AttemptRefused as error:
        return refused(request, quiz, error)
    return render_player(request, seat, attempt)


@require_POST
@login_required
def quiz_answer(request: HttpRequest, pk: int) -> HttpResponse:
    """Save one answer (so a refresh loses nothing) and move to the asked-for question;
    positions and options are as the asker sees them."""
    quiz = get_visible(Quiz.objects.readable_by, request.user, pk=pk)
    if not quiz.is_ready:
        return redirect("study:quiz-detail", pk)
    seat = quiz.seat_for(request.user)
    try:
        attempt = quiz.start_attempt(seat)
    except AttemptRefused as error:
        return refused(request, quiz, error)
    paper = seat.paper
    try:
        position = posted_choice(request.POST.get("position"))
        if position is None:
            raise InvalidAnswers("Say which question this answer is for.")
        shown = paper.at(position)
        choice = posted_choice(request.POST.get("choice"))
        if not shown.question.accepts(choice):
            raise InvalidAnswers("That option does not exist for this question.")
        attempt.answer(shown.position, shown.original(choice))
    except InvalidAnswers as error:
        errors.show(request, error)
        return render_player(request, seat, attempt, status=errors.PAGE_STATUS)
    attempt.current = position
    go = request.POST.get("go", "")
    if go.lstrip("-").isdigit():
        attempt.current = max(0, min(int(go), len(paper) - 1))
    attempt.save(update_fields=["current"])
    if request.POST.get("save_only"):
        return HttpResponse(status=204)
    if request.htmx:
        return render_player(request, seat, attempt)
    mode = request.POST.get("mode", "one")
    return redirect(f"{reverse('study:quiz-detail', args=[pk])}?mode={mode}")


@require_POST
@login_required
def quiz_submit(request: HttpRequest, pk: int) -> HttpResponse:
    """Submit the quiz: what is posted now over what was saved while playing."""
    quiz = get_visible(Quiz.objects.readable_by, request.user, pk=pk)
    if not quiz.is_ready:
        return redirect("study:quiz-detail", pk)
    seat = quiz.seat_for(request.user)
    try:
        attempt = quiz.start_attempt(seat)
    except AttemptRefused as error:
        return refused(request, quiz, error)
    answers = seat.paper.to_shown(attempt.answers)
    try:
        for position in range(len(answers)):
            posted = request.POST.get(f"q{position}")
            if request.POST.get("position") == str(position):  # the one-at-a-time form
                posted = request.POST.get("choice")
            if posted not in (None, ""):
                answers[position] = posted_choice(posted)
        attempt, badges = quiz.submit(seat.paper.to_original(answers), seat)
    except InvalidAnswers as error:
        errors.show(request, error)
        return render_player(request, seat, attempt, status=errors.PAGE_STATUS)
    except AttemptRefused as error:
        return refused(request, quiz, error)
    announce(request, badges)
    return redirect("study:attempt-detail", pk, attempt.pk)


@require_POST
@login_required
def quiz_retake(request: HttpRequest, pk: int) -> HttpResponse:
    quiz = get_visible(Quiz.objects.readable_by, request.user, pk=pk)
    if quiz.is_ready:
        try:
            quiz.retake(quiz.seat_for(request.user))
        except AttemptRefused as error:
            return refused(request, quiz, error)
    return redirect("study:quiz-detail", pk)


@require_GET
@login_required
def attempt_detail(request: HttpRequest, pk: int, attempt_pk: int) -> HttpResponse:
    """One's submitted attempt in one's own order; its score when the quiz's policy shows the
    marks (the attempts handed in while they were hidden go into progress then), the correct
    answers, explanations and the links to the passages when it shows the answer key."""
    quiz = get_visible(Quiz.objects.readable_by, request.user, pk=pk)
    attempt = get_object_or_404(quiz.handed_in_by(request.user), pk=attempt_pk)
    seat = quiz.seat_for(request.user)
    announce(request, quiz.record_marks(seat))
    changed = stale_questions(quiz) if seat.owner else []  # the owner's to refresh
    new = stale.passages_now(quiz, {q.pk: question_text(q) for q in changed}) if changed else {}
    results = review.shown_results(attempt, seat)
    sources = sources_for_each(request.user, [row.question.question.chunk_ids for row in results])
    rows = [
        (row, chunks, row.question.pk in new, new.get(row.question.pk))
        for row, chunks in zip(results, sources, strict=True)
    ]
    context = {
        "quiz": quiz,
        "attempt": attempt,
        "rows": rows,
        "key": seat.answers_shown,
        "marks": seat.marks_shown,
        "stale_count": len(changed),
        "owner": seat.owner,
        "attempts_left": seat.attempts_left,
        "answers_note": seat.answers_note,
    }
    return render(request, "study/quizzes/review.html", context)


@require_GET
@login_required
def quiz_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    quiz = get_visible(Quiz.objects.visible_to, request.user, pk=pk)
    return download(quiz, fmt, exports.FORMATS, f"quiz-{quiz.pk}")


def render_editor(request: HttpRequest, quiz: Quiz, status: int = 200) -> HttpResponse:
    context = {"quiz": quiz, "questions": quiz.questions.all()}
    return render(request, "study/quizzes/edit.html", context, status=status)


@require_GET
@login_required
def quiz_edit(request: HttpRequest, pk: int) -> HttpResponse:
    """The owner's editor: each question with its options, answer and explanation."""
    return render_editor(request, get_visible(Quiz.objects.visible_to, request.user, pk=pk))


@require_POST
@login_required
def question_update(request: HttpRequest, pk: int, position: int) -> HttpResponse:
    quiz = get_visible(Quiz.objects.visible_to, request.user, pk=pk)
    question = get_object_or_404(quiz.questions, position=position)
    try:
        typo = question.edit(
            text=request.POST.get("question", ""),
            options=request.POST.getlist("options"),
            correct_index=posted_choice(request.POST.get("correct_index")),
            explanation=request.POST.get("explanation", ""),
        )
    except StudyError as error:  # what cannot be asked, or past the storage quota
        errors.show(request, error)
        return render_editor(request, quiz, status=errors.PAGE_STATUS)
    messages.success(
        request,
        f"Question {position + 1}: "
        + (
            "a typo fix, results kept."
            if typo
            else "changed; attempts made before are on the old version."
        ),
    )
    return redirect("study:quiz-edit", pk)


@require_POST
@login_required
def question_delete(request: HttpRequest, pk: int, position: int) -> HttpResponse:
    quiz = get_visible(Quiz.objects.visible_to, request.user, pk=pk)
    question = get_object_or_404(quiz.questions, position=position)
    try:
        quiz.remove_question(question)
    except InvalidInput as error:
        errors.show(request, error)
        return render_editor(request, quiz, status=errors.PAGE_STATUS)
    messages.success(
        request,
        f"Removed question {position + 1}; attempts made before are on the old version.",
    )
    return redirect("study:quiz-edit", pk)
