"""Workshop pages: the tab (list and plan), reading and completing lessons, the recap quiz."""

from contextlib import suppress

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from apps.llm.rendering import render_markdown
from apps.study import events, generator
from apps.study.sources import sources_for
from apps.study.views import MARKDOWN, announce, download, generated, study_tab
from apps.study.workshops import exports, generation
from apps.study.workshops.forms import WorkshopForm
from apps.study.workshops.models import Lesson, Workshop

EXPORTS = {"md": (MARKDOWN, exports.as_markdown), "pdf": ("application/pdf", exports.as_pdf)}


@require_http_methods(["GET", "POST"])
@login_required
def workshops(request: HttpRequest) -> HttpResponse:
    form = WorkshopForm(request.POST or None, user=request.user)
    error = ""
    if request.method == "POST" and form.is_valid():
        made, error = generated(
            lambda: generation.create_workshop(
                request.user, num_lessons=form.cleaned_data["num_lessons"], scope=form.scope
            )
        )
        if made is not None:
            announce(request, events.outline_created(request.user))
            return redirect("study:lesson", made.pk, 1)
    context = {
        "form": form,
        "error": error,
        "workshops": Workshop.objects.visible_to(request.user).prefetch_related("lessons"),
    }
    status = 400 if request.method == "POST" else 200
    return study_tab(request, "study/workshops/list.html", context, status)


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
    return _lesson_page(request, _lesson(request, pk, number), "study/workshops/lesson.html")


@require_POST
@login_required
def lesson_write(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    lesson_ = _lesson(request, pk, number)
    # A failure is stored on the lesson; the partial shows it with a retry button.
    with suppress(generator.GenerationError):
        generation.write_lesson(lesson_)
    return _lesson_page(request, lesson_, "study/workshops/lesson.html#lesson-body")


@require_POST
@login_required
def lesson_complete(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    lesson_ = _lesson(request, pk, number)
    workshop_ = lesson_.workshop
    was_done = lesson_.completed_at is not None
    finished = workshop_.complete_lesson(lesson_)
    if not was_done:
        announce(request, events.lesson_completed(request.user))
    if finished:
        announce(request, events.workshop_completed(request.user))
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
        recap = generation.create_recap_quiz(workshop_)
    except generator.GenerationError as problem:
        messages.error(request, str(problem))
        return redirect("study:lesson", pk, workshop_.lessons.count())
    return redirect("study:quiz_play", recap.pk)


@require_GET
@login_required
def workshop_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    workshop_ = get_object_or_404(Workshop.objects.visible_to(request.user), pk=pk)
    return download(workshop_, fmt, EXPORTS, f"workshop-{workshop_.pk}")
