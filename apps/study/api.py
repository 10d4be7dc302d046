"""REST API for quizzes and workshops under /api/v1/study/ (decks and mindmaps beside them)."""

from datetime import datetime
from typing import Literal

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from ninja import Field, Router, Schema
from ninja.errors import HttpError

from apps.study import events, generator, quiz, workshop
from apps.study.models import Lesson, Quiz, Workshop

router = Router(tags=["study"])

STATUS = {generator.EmptyScope: 400, generator.ModelDown: 503, generator.NothingValid: 502}


def _generation_error(error: generator.GenerationError) -> HttpError:
    return HttpError(STATUS.get(type(error), 502), str(error))


class ScopeIn(Schema):
    category_ids: list[int] = Field(default_factory=list, max_length=100)
    document_ids: list[int] = Field(default_factory=list, max_length=500)
    # The short forms of SPEC §10's table: one category, several documents.
    category: int | None = None
    documents: list[int] = Field(default_factory=list, max_length=500)

    @property
    def scope(self) -> generator.Scope:
        categories = self.category_ids + ([self.category] if self.category else [])
        return generator.Scope(categories, self.document_ids + self.documents)


class QuizIn(ScopeIn):
    num_questions: Literal[5, 10, 20] = 10
    difficulty: Literal["beginner", "intermediate", "advanced"] = "intermediate"
    types: list[Literal["mcq", "true_false"]] = Field(
        default_factory=lambda: ["mcq", "true_false"], min_length=1, max_length=2
    )


class QuestionOut(Schema):
    position: int
    type: str
    question: str
    options: list[str]
    chunk_ids: list[int]


class AttemptSummaryOut(Schema):
    id: int
    correct: int | None
    total: int | None
    percent: int | None
    submitted_at: datetime | None


class QuizOut(Schema):
    id: int
    title: str
    difficulty: str
    types: list[str]
    requested: int
    scope: dict
    backend: str
    model: str
    created_at: datetime
    workshop_id: int | None
    questions: list[QuestionOut]
    attempts: list[AttemptSummaryOut]


class QuizListOut(Schema):
    id: int
    title: str
    difficulty: str
    num_questions: int
    created_at: datetime


class AttemptIn(Schema):
    answers: list[int | None] = Field(max_length=20)


class ResultOut(Schema):
    position: int
    chosen: int | None
    correct_index: int
    correct: bool
    explanation: str
    chunk_ids: list[int]


class AttemptOut(Schema):
    id: int
    correct: int
    total: int
    percent: int
    results: list[ResultOut]
    badges: list[str]


def _quiz_out(item: Quiz) -> dict:
    return {
        **{field: getattr(item, field) for field in QuizOut.model_fields if hasattr(item, field)},
        "questions": [
            {
                "position": q.position,
                "type": q.kind,
                "question": q.text,
                "options": q.options,
                "chunk_ids": q.chunk_ids,
            }
            for q in item.questions.all()
        ],
        "attempts": [
            {
                "id": a.pk,
                "correct": a.correct,
                "total": a.total,
                "percent": a.percent,
                "submitted_at": a.submitted_at,
            }
            for a in item.attempts.all()
        ],
    }


@router.get("/quizzes", response=list[QuizListOut])
def list_quizzes(request: HttpRequest):
    return [
        {
            "id": item.pk,
            "title": item.title,
            "difficulty": item.difficulty,
            "num_questions": item.questions.count(),
            "created_at": item.created_at,
        }
        for item in Quiz.objects.visible_to(request.user)
    ]


@router.post("/quizzes", response={201: QuizOut})
def create_quiz(request: HttpRequest, payload: QuizIn):
    try:
        made = quiz.create_quiz(
            request.user,
            num_questions=payload.num_questions,
            difficulty=payload.difficulty,
            types=list(payload.types),
            scope=payload.scope,
        )
    except generator.GenerationError as error:
        raise _generation_error(error) from error
    except ValueError as error:
        raise HttpError(400, str(error)) from error
    return 201, _quiz_out(made)


@router.get("/quizzes/{quiz_id}", response=QuizOut)
def get_quiz(request: HttpRequest, quiz_id: int):
    return _quiz_out(get_object_or_404(Quiz.objects.visible_to(request.user), pk=quiz_id))


@router.post("/quizzes/{quiz_id}/attempts", response={201: AttemptOut})
def create_attempt(request: HttpRequest, quiz_id: int, payload: AttemptIn):
    item = get_object_or_404(Quiz.objects.visible_to(request.user), pk=quiz_id)
    questions = list(item.questions.all())
    if len(payload.answers) != len(questions):
        raise HttpError(400, f"Send one answer per question: {len(questions)} answers.")
    for question, answer in zip(questions, payload.answers, strict=True):
        if answer is not None and not 0 <= answer < len(question.options):
            raise HttpError(
                400, f"Answer {answer} is not an option of question {question.position}."
            )
    attempt = item.attempts.create(answers=list(payload.answers))
    attempt.submit()
    badges = events.quiz_completed(attempt)
    return 201, {
        "id": attempt.pk,
        "correct": attempt.correct,
        "total": attempt.total,
        "percent": attempt.percent,
        "results": [
            {
                "position": question.position,
                "chosen": chosen,
                "correct_index": question.correct_index,
                "correct": right,
                "explanation": question.explanation,
                "chunk_ids": question.chunk_ids,
            }
            for question, chosen, right in attempt.results()
        ],
        "badges": [getattr(badge, "code", str(badge)) for badge in badges],
    }


@router.get("/quizzes/{quiz_id}/export", response={200: None})
def export_quiz(request: HttpRequest, quiz_id: int, format: Literal["md", "pdf"] = "md"):
    item = get_object_or_404(Quiz.objects.visible_to(request.user), pk=quiz_id)
    if format == "pdf":
        return HttpResponse(quiz.as_pdf(item), content_type="application/pdf")
    return HttpResponse(quiz.as_markdown(item), content_type="text/markdown; charset=utf-8")


# --- Workshops --------------------------------------------------------------------------------


class WorkshopIn(ScopeIn):
    num_lessons: Literal[5, 10] = 5


class LessonOut(Schema):
    number: int
    title: str
    summary: str
    status: str
    content: str
    error: str
    chunk_ids: list[int]
    completed_at: datetime | None


class WorkshopOut(Schema):
    id: int
    title: str
    summary: str
    requested: int
    scope: dict
    backend: str
    model: str
    created_at: datetime
    completed_at: datetime | None
    recap_quiz_id: int | None
    lessons: list[LessonOut]


class CompletionOut(Schema):
    number: int
    workshop_completed: bool
    badges: list[str]


def _workshop_out(item: Workshop) -> dict:
    recap = item.recap_quiz
    return {
        **{
            f: getattr(item, f)
            for f in WorkshopOut.model_fields
            if f not in ("lessons",) and hasattr(item, f)
        },  # fmt: skip
        "recap_quiz_id": recap.pk if recap else None,
        "lessons": list(item.lessons.all()),
    }


def _workshop(request: HttpRequest, workshop_id: int) -> Workshop:
    return get_object_or_404(Workshop.objects.visible_to(request.user), pk=workshop_id)


def _lesson(request: HttpRequest, workshop_id: int, number: int) -> Lesson:
    return get_object_or_404(_workshop(request, workshop_id).lessons, number=number)


@router.get("/workshops", response=list[WorkshopOut])
def list_workshops(request: HttpRequest):
    return [_workshop_out(item) for item in Workshop.objects.visible_to(request.user)]


@router.post("/workshops", response={201: WorkshopOut})
def create_workshop(request: HttpRequest, payload: WorkshopIn):
    try:
        made = workshop.create_workshop(
            request.user, num_lessons=payload.num_lessons, scope=payload.scope
        )
    except generator.GenerationError as error:
        raise _generation_error(error) from error
    events.outline_created(request.user)
    return 201, _workshop_out(made)


@router.get("/workshops/{workshop_id}", response=WorkshopOut)
def get_workshop(request: HttpRequest, workshop_id: int):
    return _workshop_out(_workshop(request, workshop_id))


@router.post("/workshops/{workshop_id}/lessons/{number}", response=LessonOut)
def write_lesson(request: HttpRequest, workshop_id: int, number: int):
    """The lesson, written by the model first if this is the first time it is opened."""
    lesson = _lesson(request, workshop_id, number)
    try:
        return workshop.write_lesson(lesson)
    except generator.GenerationError as error:
        raise _generation_error(error) from error


@router.post("/workshops/{workshop_id}/lessons/{number}/complete", response=CompletionOut)
def complete_lesson(request: HttpRequest, workshop_id: int, number: int):
    lesson = _lesson(request, workshop_id, number)
    if lesson.status != Lesson.Status.READY:
        raise HttpError(409, "Open the lesson first: it has not been written yet.")
    was_done = lesson.completed_at is not None
    finished = lesson.workshop.complete_lesson(lesson)
    badges = [] if was_done else events.lesson_completed(request.user)
    if finished:
        badges += events.workshop_completed(request.user)
    return {
        "number": number,
        "workshop_completed": finished,
        "badges": [getattr(badge, "code", str(badge)) for badge in badges],
    }


@router.post("/workshops/{workshop_id}/recap", response={201: QuizOut})
def create_recap(request: HttpRequest, workshop_id: int):
    item = _workshop(request, workshop_id)
    if item.completed_at is None:
        raise HttpError(409, "Complete every lesson first; the recap quiz comes at the end.")
    try:
        return 201, _quiz_out(item.recap_quiz or workshop.create_recap_quiz(item))
    except generator.GenerationError as error:
        raise _generation_error(error) from error


@router.get("/workshops/{workshop_id}/export", response={200: None})
def export_workshop(request: HttpRequest, workshop_id: int, format: Literal["md", "pdf"] = "md"):
    item = _workshop(request, workshop_id)
    if format == "pdf":
        return HttpResponse(workshop.as_pdf(item), content_type="application/pdf")
    return HttpResponse(workshop.as_markdown(item), content_type="text/markdown; charset=utf-8")
