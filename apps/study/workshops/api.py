"""Workshops under /api/v1/study/workshops: plan, write and complete lessons, recap, export."""

from datetime import datetime
from typing import Annotated, Literal

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from ninja import Field, Router, Schema, Status

from apps.accounts import ratelimits
from apps.accounts.api import ErrorOut, Id
from apps.study import starting, tasks
from apps.study.ownership import get_visible
from apps.study.quizzes.api import QuizOut, quiz_out
from apps.study.schemas import (
    GENERATION_ERRORS,
    STARTING_ERRORS,
    GenerationStatus,
    IdempotencyKey,
    RefreshOut,
    ScopeIn,
    StartedOut,
)
from apps.study.workshops import exports, generation
from apps.study.workshops.models import Lesson, LessonCompletion, Workshop
from apps.study.workshops.stale import refresh_workshop as refresh_stale
from apps.study.workshops.stale import stale_lessons

router = Router(tags=["study"])


class WorkshopIn(ScopeIn):
    num_lessons: Literal[5, 10] = 5


# Lessons are numbered from 1; no workshop has more than the largest size.
LessonNumber = Annotated[int, Field(ge=1, le=max(Workshop.SIZES))]


class LessonOut(Schema):
    number: LessonNumber
    title: str
    summary: str
    status: Literal["pending", "generating", "ready", "failed"]
    content: str
    error: str
    chunk_ids: list[Id]
    extractive: bool  # cut from the documents' passages, not written by the model
    source_changed: bool = False  # a passage it cites was retired by re-ingestion
    completed_at: datetime | None


class WorkshopOut(Schema):
    id: Id
    status: GenerationStatus  # the lessons are here once the outline is ready
    error: str
    title: str
    summary: str
    requested: int
    scope: dict
    backend: str
    model: str
    created_at: datetime
    completed_at: datetime | None
    recap_quiz_id: Id | None
    lessons: list[LessonOut]


class CompletionOut(Schema):
    number: LessonNumber
    workshop_completed: bool
    badges: list[str]


def workshop_out(item: Workshop, user) -> dict:
    """The workshop as `user` sees it: their own completions; the owner's recap and stale
    marks."""
    owner = item.owner_id == user.pk
    recap = item.recap_quiz if owner else None
    lessons = list(item.lessons.all())
    changed = {lesson.pk for lesson in stale_lessons(item)} if owner else set()
    if not owner:
        done = dict(
            LessonCompletion.objects.filter(lesson__workshop=item, student=user).values_list(
                "lesson_id", "completed_at"
            )
        )
        for lesson in lessons:
            lesson.completed_at = done.get(lesson.pk)
    for lesson in lessons:
        lesson.source_changed = lesson.pk in changed
    finished = all(lesson.completed_at for lesson in lessons) and bool(lessons)
    completed_at = item.completed_at if owner else (max(done.values()) if finished else None)
    return {
        **{f: getattr(item, f) for f in WorkshopOut.model_fields if hasattr(item, f)},
        "completed_at": completed_at,
        "recap_quiz_id": recap.pk if recap else None,
        "lessons": lessons,
    }


@router.get("/workshops", response=list[WorkshopOut])
def list_workshops(request: HttpRequest):
    return [
        workshop_out(item, request.auth)
        for item in Workshop.objects.visible_to(request.auth).settled()
    ]


@router.post("/workshops", response={202: StartedOut, **STARTING_ERRORS})
def create_workshop(request: HttpRequest, payload: WorkshopIn, key: IdempotencyKey = ""):
    """Start a workshop; a worker plans its outline. GET it until `status` is ready."""
    workshop = starting.start(
        request,
        "workshop",
        request.auth,
        key,
        generation.start_workshop,
        for_class=starting.class_for(request.auth, payload.for_class, payload.class_id),
        num_lessons=payload.num_lessons,
        scope=payload.scope,
        method=payload.method,
    )
    return Status(202, workshop)


@router.get("/workshops/{workshop_id}", response={200: WorkshopOut, 404: ErrorOut})
def get_workshop(request: HttpRequest, workshop_id: Id):
    workshop = get_visible(Workshop.objects.readable_by, request.auth, pk=workshop_id)
    workshop.settle()
    return workshop_out(workshop, request.auth)


@router.post(
    "/workshops/{workshop_id}/lessons/{number}",
    response={200: LessonOut, 202: LessonOut, 404: ErrorOut, 429: ErrorOut},
)
def write_lesson(request: HttpRequest, workshop_id: Id, number: LessonNumber):
    """The lesson: 200 once written; otherwise a worker writes it (queued once, however often
    this is called) and this answers 202 with `status` generating. Poll this route or GET the
    workshop; a failed lesson is queued again. A lesson of a workshop handed out to the class
    is written once, for everyone, by whoever asks first."""
    workshop = get_visible(Workshop.objects.readable_by, request.auth, pk=workshop_id)
    lesson = get_object_or_404(workshop.lessons, number=number)
    lesson.settle()
    if lesson.status not in (Lesson.Status.READY, Lesson.Status.GENERATING):
        ratelimits.check(request, "RATE_LIMIT_GENERATION", "study generations")
        if generation.start_lesson(lesson):
            tasks.enqueue("lesson", lesson.pk)
    if lesson.workshop.owner_id != request.auth.pk:  # the student's own mark, not the owner's
        mine = lesson.completions.filter(student=request.auth).first()
        lesson.completed_at = mine.completed_at if mine else None
    return lesson if lesson.status == Lesson.Status.READY else Status(202, lesson)


@router.post(
    "/workshops/{workshop_id}/lessons/{number}/complete",
    response={200: CompletionOut, 404: ErrorOut, 409: ErrorOut},
)
def complete_lesson(request: HttpRequest, workshop_id: Id, number: LessonNumber):
    workshop = get_visible(Workshop.objects.readable_by, request.auth, pk=workshop_id)
    lesson = get_object_or_404(workshop.lessons, number=number)
    finished, badges = lesson.workshop.complete_lesson(lesson, by=request.auth)
    return {
        "number": number,
        "workshop_completed": finished,
        "badges": [earned.badge.code for earned in badges],
    }


@router.post(
    "/workshops/{workshop_id}/recap",
    response={201: QuizOut, 404: ErrorOut, 409: ErrorOut, **GENERATION_ERRORS},
)
def create_recap(request: HttpRequest, workshop_id: Id):
    recap = generation.recap_quiz(
        get_visible(Workshop.objects.visible_to, request.auth, pk=workshop_id)
    )
    return Status(201, quiz_out(recap, request.auth))


@router.get("/workshops/{workshop_id}/export", response={200: None, 404: ErrorOut})
def export_workshop(request: HttpRequest, workshop_id: Id, format: Literal["md", "pdf"] = "md"):
    item = get_visible(Workshop.objects.visible_to, request.auth, pk=workshop_id)
    if format == "pdf":
        return HttpResponse(exports.as_pdf(item), content_type="application/pdf")
    return HttpResponse(exports.as_markdown(item), content_type="text/markdown; charset=utf-8")


@router.post("/workshops/{workshop_id}/refresh", response={200: RefreshOut, 404: ErrorOut})
def refresh_workshop(request: HttpRequest, workshop_id: Id):
    """Only the lessons whose sources changed: cut again, or written again when next opened."""
    workshop = get_visible(Workshop.objects.visible_to, request.auth, pk=workshop_id)
    refreshed = refresh_stale(workshop)
    return {"refreshed": refreshed, "stale": len(stale_lessons(workshop))}
