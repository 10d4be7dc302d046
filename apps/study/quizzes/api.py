"""Quizzes under /api/v1/study/quizzes: generate or import, read, answer, export."""

from datetime import date, datetime
from typing import Annotated, Literal

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from ninja import Field, File, Router, Schema, Status
from ninja.files import UploadedFile

from apps.accounts import ratelimits
from apps.accounts.api import ErrorOut, Id
from apps.study import starting
from apps.study.ownership import get_visible
from apps.study.quizzes import bank_import, exports, generation, review
from apps.study.quizzes.models import Question, Quiz
from apps.study.quizzes.seat import Seat
from apps.study.quizzes.stale import refresh_quiz as refresh_stale
from apps.study.quizzes.stale import stale_questions
from apps.study.schemas import (
    STARTING_ERRORS,
    GenerationStatus,
    IdempotencyKey,
    RefreshOut,
    ScopeIn,
    StartedOut,
    checked_by_the_rule,
)
from apps.study.views import download

router = Router(tags=["study"])


# The models' choices, spelled out: ninja files enums by class name, which can clash.
Level = Literal["beginner", "intermediate", "advanced"]
QuestionType = Literal["mcq", "true_false"]


class QuizIn(ScopeIn):
    num_questions: Literal[5, 10, 20] = 10
    difficulty: Level = "intermediate"
    types: list[QuestionType] = Field(
        default_factory=lambda: ["mcq", "true_false"], min_length=1, max_length=2
    )


class QuestionOut(Schema):
    """A question as the asker sees it: on a class quiz a student's questions and options
    come in their own shuffled order (the same on every call); `position` counts in it.
    `chunk_ids` (the passages it was cut from, which hold its answer) is empty for a student
    until the answer key shows in a review of theirs."""

    position: int
    type: QuestionType
    question: str
    options: list[str]
    chunk_ids: list[Id]
    extractive: bool  # cut from its chunk to fill what the model fell short of (or no model)
    source_changed: bool  # a chunk it cites was retired by re-ingestion


class AttemptSummaryOut(Schema):
    id: Id
    correct: int | None  # null while unfinished, or while the policy hides the marks
    total: int | None
    percent: int | None  # as `correct`
    submitted_at: datetime | None


class PolicyOut(Schema):
    attempts_allowed: int | None  # null: unlimited
    attempts_left: int | None  # null: unlimited
    grading: Literal["first", "best", "average", "latest"]
    reveal: Literal["after_due", "after_attempt", "never"]
    marks: Literal["after_due", "after_attempt", "never"]
    due: date | None  # no attempt starts after this day
    answers_shown: bool  # the correct answers and explanations show in the attempts' replies
    marks_shown: bool  # the attempts' scores show


class QuizOut(Schema):
    id: Id
    status: GenerationStatus  # the questions are here once it is ready
    error: str  # why it could not be made, when it failed
    title: str
    difficulty: Level
    types: list[QuestionType]
    requested: int
    scope: dict
    backend: str
    model: str
    created_at: datetime
    workshop_id: Id | None
    questions: list[QuestionOut]
    attempts: list[AttemptSummaryOut]
    policy: PolicyOut | None  # a student's rules on a class quiz; none on one's own


class QuizListOut(Schema):
    id: Id
    status: GenerationStatus
    title: str
    difficulty: Level
    num_questions: int
    created_at: datetime

    @staticmethod
    def resolve_num_questions(quiz: Quiz) -> int:
        return quiz.questions.count()


# An option's index, or null for a question left open. How many and which answers fit is
# Quiz.check_answers's rule, as for the page; the schema shows what any quiz could take.
Choice = Annotated[int, checked_by_the_rule(minimum=0, maximum=Question.MAX_OPTIONS - 1)]


class AttemptIn(Schema):
    answers: list[Choice | None] = checked_by_the_rule(
        maxItems=Quiz.MOST_QUESTIONS,
        description="One per question, in the order GET /quizzes/{id} shows the questions to "
        "you, each the index of an option in the order shown there (on a class quiz, your own "
        "shuffled order), or null for a question left open.",
    )


class ResultOut(Schema):
    """One answer in the order the questions were shown to you. `correct_index`, `correct`
    and `explanation` are null, and `chunk_ids` empty, while the quiz's policy keeps the
    answer key hidden."""

    position: int
    chosen: int | None
    correct_index: int | None
    correct: bool | None
    explanation: str | None
    chunk_ids: list[Id]


class AttemptOut(Schema):
    """`correct` and `percent` are null while the quiz's policy hides the marks (a score per
    attempt would give the key away, one changed answer at a time)."""

    id: Id
    correct: int | None
    total: int
    percent: int | None
    answers_shown: bool  # whether the results carry the correct answers and explanations
    marks_shown: bool  # whether `correct` and `percent` are given
    results: list[ResultOut]
    badges: list[str]


def policy_out(seat: Seat) -> dict | None:
    policy = seat.policy
    if not policy.for_class:
        return None
    return {
        "attempts_allowed": policy.attempts,
        "attempts_left": seat.attempts_left,
        "grading": policy.grading,
        "reveal": policy.reveal,
        "marks": policy.marks,
        "due": policy.due,
        "answers_shown": seat.answers_shown,
        "marks_shown": seat.marks_shown,
    }


def quiz_out(item: Quiz, user) -> dict:
    """The quiz as `user` sees it: in their order, only their own attempts (with their scores
    once the marks show, recorded for their progress then); the owner's stale marks. No
    answer key: that shows only in an attempt's results."""
    seat = item.seat_for(user)
    item.record_marks(seat)
    changed = {question.pk for question in stale_questions(item)} if seat.owner else set()
    return {
        **{field: getattr(item, field) for field in QuizOut.model_fields if hasattr(item, field)},
        "questions": [
            {
                "position": position,
                "type": shown.question.kind,
                "question": shown.text,
                "options": shown.options,
                "chunk_ids": shown.question.chunk_ids if seat.sources_shown else [],
                "extractive": shown.extractive,
                "source_changed": shown.pk in changed,
            }
            for position, shown in enumerate(seat.paper.questions)
        ],
        "attempts": [
            {"id": a.pk, **review.score(a, seat), "submitted_at": a.submitted_at}
            for a in item.attempts_of(user)
        ],
        "policy": policy_out(seat),
    }


@router.get("/quizzes", response=list[QuizListOut])
def list_quizzes(request: HttpRequest):
    return Quiz.objects.visible_to(request.auth).settled()


@router.post("/quizzes", response={202: StartedOut, **STARTING_ERRORS})
def create_quiz(request: HttpRequest, payload: QuizIn, key: IdempotencyKey = ""):
    """Start a quiz; a worker makes it. GET it until `status` is ready."""
    quiz = starting.start(
        request,
        "quiz",
        request.auth,
        key,
        generation.start_quiz,
        for_class=starting.class_for(request.auth, payload.for_class, payload.class_id),
        num_questions=payload.num_questions,
        difficulty=payload.difficulty,
        types=list(payload.types),
        scope=payload.scope,
        method=payload.method,
    )
    return Status(202, quiz)


# Declared before /quizzes/{quiz_id}, which would take "import" for an id.
class SkippedOut(Schema):
    index: int  # the question's number in the file, from 1
    type: str  # the file's own name for its kind of question: "essay", "matchInteraction"
    reason: str


class QuizImportOut(Schema):
    id: Id
    imported: int
    skipped: list[SkippedOut]


@router.post(
    "/quizzes/import", response={201: QuizImportOut, 400: ErrorOut, 413: ErrorOut, 429: ErrorOut}
)
def import_quiz(request: HttpRequest, file: File[UploadedFile]):
    """A quiz of the multiple choice (one right answer) and true/false questions of a Moodle
    XML, GIFT or QTI 2.1 file, told apart by its content; the other questions are listed as
    skipped. A file with none is a 400, and nothing is kept."""
    ratelimits.check(request, "RATE_LIMIT_UPLOADS", "uploads")
    quiz, skipped = bank_import.import_quiz(request.auth, file)
    return Status(201, {"id": quiz.pk, "imported": quiz.questions.count(), "skipped": skipped})


@router.get("/quizzes/{quiz_id}", response={200: QuizOut, 404: ErrorOut})
def get_quiz(request: HttpRequest, quiz_id: Id):
    quiz = get_visible(Quiz.objects.readable_by, request.auth, pk=quiz_id)
    quiz.settle()
    return quiz_out(quiz, request.auth)


@router.post(
    "/quizzes/{quiz_id}/attempts",
    response={201: AttemptOut, 404: ErrorOut, 409: ErrorOut, 422: ErrorOut},
)
def create_attempt(request: HttpRequest, quiz_id: Id, payload: AttemptIn):
    """Submit answers given in the order GET /quizzes/{id} shows (see AttemptIn); 409 when
    the quiz's policy allows no attempt (none left, past the due date)."""
    quiz = get_visible(Quiz.objects.readable_by, request.auth, pk=quiz_id)
    quiz.require_ready()
    seat = quiz.seat_for(request.auth)
    attempt, badges = quiz.submit(seat.paper.to_original(payload.answers), seat)
    return Status(
        201,
        {
            "id": attempt.pk,
            **review.score(attempt, seat),
            "answers_shown": seat.answers_shown,
            "marks_shown": seat.marks_shown,
            "results": [
                {
                    "position": row.position,
                    "chosen": row.chosen,
                    "correct_index": row.correct_index,
                    "correct": row.right,
                    "explanation": row.explanation,
                    "chunk_ids": row.question.question.chunk_ids if seat.answers_shown else [],
                }
                for row in review.shown_results(attempt, seat)
            ],
            "badges": [earned.badge.code for earned in badges],
        },
    )


# Positions as QuestionOut numbers them, from 0; no quiz has more than MOST_QUESTIONS.
Position = Annotated[int, Field(ge=0, le=Quiz.MOST_QUESTIONS - 1)]


class QuestionPatch(Schema):
    """What to change; the rest stays. A typo fix keeps the question's version (and the
    results of attempts made before); any other change starts a new version."""

    question: str | None = Field(None, min_length=1, max_length=2000)
    options: list[Annotated[str, Field(min_length=1, max_length=500)]] | None = Field(
        None, min_length=2, max_length=Question.MAX_OPTIONS
    )
    correct_index: Choice | None = None
    explanation: str | None = Field(None, max_length=4000)


NO_QUESTION_CHANGE = QuestionPatch()


class QuestionEditOut(Schema):
    position: Position
    version: int
    typo_fix: bool  # the change was small enough to keep the results


@router.patch(
    "/quizzes/{quiz_id}/questions/{position}",
    response={200: QuestionEditOut, 404: ErrorOut, 413: ErrorOut, 422: ErrorOut},
)
def edit_question(
    request: HttpRequest,
    quiz_id: Id,
    position: Position,
    payload: QuestionPatch = NO_QUESTION_CHANGE,
):
    quiz = get_visible(Quiz.objects.visible_to, request.auth, pk=quiz_id)
    question = get_object_or_404(quiz.questions, position=position)
    typo = question.edit(
        text=payload.question,
        options=payload.options,
        correct_index=payload.correct_index,
        explanation=payload.explanation,
    )
    return {"position": question.position, "version": question.version, "typo_fix": typo}


@router.delete(
    "/quizzes/{quiz_id}/questions/{position}", response={204: None, 404: ErrorOut, 422: ErrorOut}
)
def remove_question(request: HttpRequest, quiz_id: Id, position: Position):
    """Attempts made before keep their answers and show as made on an older version."""
    quiz = get_visible(Quiz.objects.visible_to, request.auth, pk=quiz_id)
    quiz.remove_question(get_object_or_404(quiz.questions, position=position))
    return Status(204, None)


@router.get("/quizzes/{quiz_id}/export", response={200: None, 404: ErrorOut})
def export_quiz(request: HttpRequest, quiz_id: Id, format: Literal["md", "pdf"] = "md"):
    item = get_visible(Quiz.objects.visible_to, request.auth, pk=quiz_id)
    content_type, make = exports.FORMATS[format]
    return HttpResponse(make(item), content_type=content_type)


@router.get("/quizzes/{quiz_id}/export.{fmt}", response={200: None, 404: ErrorOut})
def export_quiz_file(
    request: HttpRequest, quiz_id: Id, fmt: Literal["xml", "gift", "zip", "md", "pdf"]
):
    """The quiz as Moodle XML (`.xml`), GIFT (`.gift`), an IMS QTI 2.1 package (`.zip`),
    Markdown or PDF."""
    item = get_visible(Quiz.objects.visible_to, request.auth, pk=quiz_id)
    return download(item, fmt, exports.FORMATS, f"quiz-{item.pk}")


@router.post("/quizzes/{quiz_id}/refresh", response={200: RefreshOut, 404: ErrorOut})
def refresh_quiz(request: HttpRequest, quiz_id: Id):
    """Cut again (or point to the new passage) only the questions whose source changed."""
    quiz = get_visible(Quiz.objects.visible_to, request.auth, pk=quiz_id)
    refreshed = refresh_stale(quiz)
    return {"refreshed": refreshed, "stale": len(stale_questions(quiz))}
