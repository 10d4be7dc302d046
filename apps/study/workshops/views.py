"""Workshop pages: the tab (list and plan), reading and completing lessons, the recap quiz."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from apps.accounts.ratelimits import rate_limited
from apps.llm.rendering import render_markdown
from apps.study import errors, stale, tasks
from apps.study.errors import StudyError
from apps.study.ownership import get_visible
from apps.study.sources import sources_for
from apps.study.views import MARKDOWN, announce, download, generate, render_generating, study_tab
from apps.study.workshops import exports, generation
from apps.study.workshops.forms import WorkshopForm
from apps.study.workshops.models import Lesson, Workshop
from apps.study.workshops.stale import lesson_text, stale_lessons

EXPORTS = {"md": (MARKDOWN, exports.as_markdown), "pdf": ("application/pdf", exports.as_pdf)}


@require_http_methods(["GET", "POST"])
@login_required
def workshop_list(request: HttpRequest) -> HttpResponse:
    form = WorkshopForm(request.POST or None, user=request.user)
    if started := generate(request, "workshop", form, generation.start_workshop, "num_lessons"):
        return started
    context = {
        "form": form,
        "workshops": Workshop.objects.visible_to(request.user)
        .settled()
        .prefetch_related("lessons"),
    }
    status = errors.PAGE_STATUS if request.method == "POST" else 200
    return study_tab(request, "study/workshops/list.html", context, status)


@require_GET
@login_required
def workshop_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """A workshop opens at its first lesson not completed yet (the last one when all are);
    one being planned shows its card."""
    workshop = get_visible(Workshop.objects.readable_by, request.user, pk=pk)
    workshop.settle()
    if not workshop.is_ready:
        return render_generating(request, "workshop", workshop)
    lessons = workshop.lessons
    done = workshop.completed_by(request.user)
    lesson = lessons.exclude(pk__in=done).first() or lessons.last()
    return redirect("study:lesson-detail", pk, lesson.number)


def render_lesson(request: HttpRequest, lesson: Lesson, status: int = 200) -> HttpResponse:
    """The lesson's page, or for htmx its body."""
    workshop = lesson.workshop
    owner = workshop.owner_id == request.user.pk
    changed = stale_lessons(workshop) if owner else []  # the owner's to refresh
    completed = workshop.completed_by(request.user)
    # The lesson body a write swaps in sits below the notice: only the whole page searches.
    shown = lesson in changed and not request.htmx
    new = stale.passages_now(workshop, {lesson.pk: lesson_text(lesson)} if shown else {})
    context = {
        "stale_count": len(changed),
        "stale_lessons": {item.pk for item in changed},
        "passage": new.get(lesson.pk),
        "workshop": workshop,
        "lesson": lesson,
        "lessons": workshop.lessons.all(),
        "body": render_markdown(lesson.content),
        "sources": sources_for(request.user, lesson.chunk_ids),
        "next": workshop.lessons.filter(number=lesson.number + 1).first(),
        "owner": owner,
        "completed": completed,
        # The recap quiz is the owner's (it is made as theirs).
        "recap": owner and workshop.completed_at is not None,
    }
    template = "study/workshops/lesson.html" + ("#lesson-body" if request.htmx else "")
    return render(request, template, context, status=status)


@require_GET
@login_required
def lesson_detail(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Read a lesson; one not written yet is written by a worker right after the page
    arrives, and the lesson's body asks for itself again (htmx) until it is."""
    workshop = get_visible(Workshop.objects.readable_by, request.user, pk=pk)
    lesson = get_object_or_404(workshop.lessons, number=number)
    lesson.settle()
    return render_lesson(request, lesson)


@require_POST
@login_required
@rate_limited("RATE_LIMIT_GENERATION", "study generations")
def lesson_write(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """Have a worker write the lesson (once: a lesson being written is not queued again). A
    lesson of a class workshop is written once, for everyone, by whoever opens it first."""
    workshop = get_visible(Workshop.objects.readable_by, request.user, pk=pk)
    lesson = get_object_or_404(workshop.lessons, number=number)
    if generation.start_lesson(lesson):
        tasks.enqueue("lesson", lesson.pk)
    if request.htmx:
        return render_lesson(request, lesson)
    return redirect("study:lesson-detail", pk, number)


@require_POST
@login_required
def lesson_complete(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    workshop = get_visible(Workshop.objects.readable_by, request.user, pk=pk)
    lesson = get_object_or_404(workshop.lessons, number=number)
    try:
        finished, badges = workshop.complete_lesson(lesson, by=request.user)
    except StudyError as error:
        errors.show(request, error)
        return render_lesson(request, lesson, status=errors.PAGE_STATUS)
    announce(request, badges)
    if finished:
        recap = (
            " Check yourself with the recap quiz." if workshop.owner_id == request.user.pk else ""
        )
        messages.success(request, "Workshop complete." + recap)
    elif workshop.lessons.filter(number=number + 1).exists():
        return redirect("study:lesson-detail", pk, number + 1)
    return redirect("study:lesson-detail", pk, number)


@require_POST
@login_required
def workshop_recap(request: HttpRequest, pk: int) -> HttpResponse:
    workshop = get_visible(Workshop.objects.visible_to, request.user, pk=pk)
    try:
        recap = generation.recap_quiz(workshop)
    except StudyError as error:
        errors.show(request, error)
        last = workshop.lessons.select_related("workshop").last()
        return render_lesson(request, last, status=errors.PAGE_STATUS)
    return redirect("study:quiz-detail", recap.pk)


@require_GET
@login_required
def workshop_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    workshop = get_visible(Workshop.objects.visible_to, request.user, pk=pk)
    return download(workshop, fmt, EXPORTS, f"workshop-{workshop.pk}")
