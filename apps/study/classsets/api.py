"""Class sets under /api/v1/study/class-sets: hand out, take back, list, the class's results.

A student studies a set through each feature's own routes (quiz attempts, card reviews,
lesson completion, mindmap arrangement), which accept what is handed out to their class.
"""

from datetime import date, datetime
from typing import Annotated, Literal

from django.http import HttpRequest, HttpResponse
from ninja import Field, Query, Router, Schema, Status
from pydantic import AfterValidator, AliasChoices

from apps.accounts.api import ErrorOut, Id
from apps.study import kinds, starting
from apps.study.classsets import gradebooks, results
from apps.study.classsets.models import MAX_ATTEMPTS, ClassSet
from apps.study.ownership import get_visible, is_student
from apps.vault.models import Chunk

router = Router(tags=["study"])


def handed_out_kind(name: str) -> str:
    names = [kind.name for kind in kinds.handed_out()]
    if name not in names:
        raise ValueError(f"Hand out one of: {', '.join(names)}.")
    return name


def list_handed_out_kinds(schema: dict) -> None:
    schema["enum"] = [kind.name for kind in kinds.handed_out()]


# A kind a teacher hands out (apps/study/kinds.py), as the registry stands when a request is
# checked or the schema is written.
Kind = Annotated[
    str, AfterValidator(handed_out_kind), Field(json_schema_extra=list_handed_out_kinds)
]
Grading = Literal["first", "best", "average", "latest"]
Reveal = Literal["after_due", "after_attempt", "never"]
Marks = Reveal  # the same moments


class ClassSetIn(Schema):
    kind: Kind
    class_id: Id | None = Field(
        None, description="The class it is handed to; optional while you teach one class."
    )
    item_id: Id = Field(
        ...,
        validation_alias=AliasChoices("item_id", "id"),
        description="The quiz's, deck's, mindmap's or workshop's id (also accepted as `id`).",
    )
    note: str = Field("", max_length=500)
    due: date | None = Field(
        None,
        description="No quiz attempt starts after this day (ending in the teacher's time zone).",
    )
    attempts: int | None = Field(
        1, ge=1, le=MAX_ATTEMPTS, description="Quiz attempts allowed per student; null: unlimited."
    )
    grading: Grading = Field("first", description="Which attempts make a student's quiz score.")
    reveal: Reveal = Field(
        "after_due",
        description="When students see a quiz's correct answers and explanations: after the "
        "due date (or once the teacher releases them), after each attempt, or never (unless "
        "released).",
    )
    marks: Marks | None = Field(
        None,
        description="When students see their quiz scores: after each attempt, after the due "
        "date (or once the teacher releases the answers), or never (unless released); with the "
        "answers at the latest, which tell them. Left out: after each attempt when one attempt "
        "is allowed (or the answers show after each), else after the due date.",
    )


class ReviewDayOut(Schema):
    day: date
    reviews: int


class FiguresOut(Schema):
    started: bool
    finished: bool
    score: int | None  # percent: quiz score, deck mastery or lessons completed
    detail: str
    old_version: bool  # the score is from an attempt on an older version of the quiz
    last_activity: datetime | None
    review_days: list[ReviewDayOut]  # a deck's reviews per day; empty for other kinds


class AttemptRowOut(Schema):
    number: int  # the student's first, second, ... attempt
    started_at: datetime
    submitted_at: datetime
    correct: int
    total: int
    percent: int
    old_version: bool  # a question it answered was changed or removed since
    graded: bool  # counts for the graded figure (`score`) by the set's grading


class StudentFiguresOut(FiguresOut):
    username: str
    name: str
    attempts: list[AttemptRowOut]  # a quiz's submitted attempts, oldest first


class OptionCountOut(Schema):
    number: int  # in the quiz's own order, from 0
    text: str
    correct: bool
    chosen: int


class QuestionStatsOut(Schema):
    """One question of the quiz (its own order) over the graded attempts."""

    question_id: Id
    position: int
    text: str
    answered: int
    unanswered: int
    facility: int | None  # percent right
    discrimination: float | None  # Moodle's index: item score vs the rest of the quiz
    older_version: int  # graded attempts made on an older version of it
    options: list[OptionCountOut]


class ClassSetOut(Schema):
    id: Id
    class_id: Id
    class_name: str
    kind: Kind
    item_id: Id
    title: str
    teacher: str
    note: str
    due: date | None
    handed_out_at: datetime
    url: str  # the page to study it on
    mine: FiguresOut | None  # a student's own figures; none for the teacher
    # A quiz's policy (null for other kinds); attempts null: unlimited.
    attempts: int | None
    grading: Grading | None
    reveal: Reveal | None
    marks: Marks | None
    answers_released_at: datetime | None
    attempts_left: int | None  # a student's, on a quiz with limited attempts
    answers_shown: bool | None  # a student's: may they see the correct answers now
    marks_shown: bool | None  # a student's: may they see their scores now (`mine.score`)


class PassageOut(Schema):
    chunk_id: Id
    document_id: Id
    filename: str
    page: int | None
    text: str

    @staticmethod
    def resolve_chunk_id(chunk: Chunk) -> int:
        return chunk.pk

    @staticmethod
    def resolve_filename(chunk: Chunk) -> str:
        return chunk.document.filename


class MissedOut(Schema):
    item_id: Id  # the question's or card's id
    position: int
    text: str
    misses: int
    students: int
    passage: PassageOut | None


class ResultsOut(Schema):
    class_set: ClassSetOut
    students: list[StudentFiguresOut]
    most_missed: list[MissedOut]
    questions: list[QuestionStatsOut]  # a quiz's statistics; empty for other kinds


def figures_out(figures: kinds.Figures) -> dict:
    days = [{"day": day, "reviews": count} for day, count in figures.review_days]
    return {**vars(figures), "review_days": days}


def quiz_policy_out(class_set: ClassSet, user) -> dict:
    if class_set.kind != "quiz":
        keys = ("attempts", "grading", "reveal", "marks", "answers_released_at", "attempts_left")
        return {**dict.fromkeys(keys), "answers_shown": None, "marks_shown": None}
    seat = class_set.item.seat_for(user, class_set) if is_student(user) else None
    return {
        "attempts": class_set.attempts,
        "grading": class_set.grading,
        "reveal": class_set.reveal,
        "marks": class_set.marks,
        "answers_released_at": class_set.released_at,
        "attempts_left": seat.attempts_left if seat else None,
        "answers_shown": seat.answers_shown if seat else None,
        "marks_shown": seat.marks_shown if seat else None,
    }


def class_set_out(class_set: ClassSet, user) -> dict:
    mine = results.figures_of(class_set, user) if is_student(user) else None
    return {
        **quiz_policy_out(class_set, user),
        "id": class_set.pk,
        "class_id": class_set.school_class_id,
        "class_name": class_set.school_class.name,
        "kind": class_set.kind,
        "item_id": class_set.item_id,
        "title": class_set.item.title,
        "teacher": class_set.teacher.get_full_name() or class_set.teacher.username,
        "note": class_set.note,
        "due": class_set.due,
        "handed_out_at": class_set.handed_out_at,
        "url": class_set.study_url(),
        "mine": figures_out(mine) if mine else None,
    }


@router.post(
    "/class-sets",
    response={201: ClassSetOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 422: ErrorOut},
)
def hand_out(request: HttpRequest, payload: ClassSetIn):
    """Hand one of your quizzes, decks, mindmaps or workshops to a class you teach."""
    school_class = starting.class_for(request.auth, True, payload.class_id)
    model = kinds.get(payload.kind).model
    item = get_visible(model.objects.visible_to, request.auth, pk=payload.item_id)
    policy = payload.model_dump(include={"attempts", "grading", "reveal", "marks"})
    made = ClassSet.objects.hand_out(
        request.auth, item, school_class, note=payload.note, due=payload.due, **policy
    )
    return Status(201, class_set_out(made, request.auth))


@router.get("/class-sets", response=list[ClassSetOut])
def list_class_sets(request: HttpRequest, class_id: Id | None = None):
    """A student: every set handed out to their classes, with their own figures. A teacher:
    the sets of the classes they teach (of one, with `class_id`)."""
    sets = ClassSet.objects.readable_by(request.auth).select_related("teacher", "school_class")
    if class_id:
        sets = sets.filter(school_class_id=class_id)
    sets = sets.with_items()
    return [class_set_out(class_set, request.auth) for class_set in sets]


@router.get("/class-sets/{set_id}", response={200: ClassSetOut, 404: ErrorOut})
def get_class_set(request: HttpRequest, set_id: Id):
    return class_set_out(
        get_visible(ClassSet.objects.readable_by, request.auth, pk=set_id), request.auth
    )


@router.delete("/class-sets/{set_id}", response={204: None, 404: ErrorOut})
def take_back(request: HttpRequest, set_id: Id):
    """Students no longer reach it; their work stays, and comes back if it is handed out
    again."""
    get_visible(ClassSet.objects.taught_by, request.auth, pk=set_id).delete()
    return Status(204, None)


def results_out(report: results.Results, user) -> dict:
    attempts = {s.student.pk: s.attempts for s in report.quiz.students} if report.quiz else {}
    return {
        "class_set": class_set_out(report.class_set, user),
        "students": [
            {
                **figures_out(row),
                "username": row.student.username,
                "name": row.student.get_full_name(),
                "attempts": attempts.get(row.student.pk, []),
            }
            for row in report.students
        ],
        "questions": report.quiz.questions if report.quiz else [],
        "most_missed": report.most_missed or [],
    }


@router.post(
    "/class-sets/{set_id}/release", response={200: ClassSetOut, 404: ErrorOut, 422: ErrorOut}
)
def release_answers(request: HttpRequest, set_id: Id):
    """Show the class a quiz's correct answers and explanations now, whatever its policy."""
    class_set = get_visible(ClassSet.objects.taught_by, request.auth, pk=set_id)
    class_set.release()
    return class_set_out(class_set, request.auth)


@router.get("/class-sets/{set_id}/results", response={200: ResultsOut, 404: ErrorOut})
def class_results(request: HttpRequest, set_id: Id):
    """Every student's figures and what the class misses most (the class's teachers only)."""
    return results_out(
        results.results(get_visible(ClassSet.objects.taught_by, request.auth, pk=set_id)),
        request.auth,
    )


@router.get("/class-sets/{set_id}/results.csv", response={200: None, 404: ErrorOut})
def class_results_csv(
    request: HttpRequest,
    set_id: Id,
    table: Literal["students", "attempts", "questions"] = "students",
    gradebook: Annotated[Literal["moodle", "canvas"] | None, Query(alias="for")] = None,
):
    """The results page's figures as CSV: one row per student, per quiz attempt, or per
    option of each quiz question (with its facility and discrimination). `?for=moodle` or
    `?for=canvas`: the marks as that gradebook's own import file instead."""
    class_set = get_visible(ClassSet.objects.taught_by, request.auth, pk=set_id)
    content, name = gradebooks.results_file(class_set, table, gradebook)
    response = HttpResponse(content, content_type="text/csv")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
