"""Classes and their students under /api/v1/: classes, enrolments, joining by code, and the
student accounts a teacher makes and looks after (`/accounts/students...`). Every lookup goes
through apps/classes/reach.py: a class, student or batch a teacher does not teach is a 404."""

from datetime import datetime
from typing import Annotated

from django.http import HttpRequest
from ninja import Field, File, Form, Router, Schema, Status
from ninja.files import UploadedFile

from apps.accounts import login_cards, ratelimits
from apps.accounts.api import ErrorOut, Id, Said, require_teacher, said
from apps.accounts.forms import MAX_NAME_LENGTH, MAX_STUDENTS_PER_REQUEST, StudentListForm
from apps.accounts.lan import bases
from apps.accounts.models import StudentBatch, User
from apps.classes import reach, roster_files, rosters
from apps.classes.models import MAX_NAME_LENGTH as MAX_CLASS_NAME
from apps.classes.models import SchoolClass

router = Router(tags=["classes"])

ONLY_TEACHERS = "Only teachers manage classes and student accounts."

ClassName = Annotated[Said, said(MAX_CLASS_NAME)]
StudentName = Annotated[Said, said(MAX_NAME_LENGTH)]


class ClassIn(Schema):
    name: ClassName


class ClassOut(Schema):
    id: Id
    name: str
    code: str  # the join code; empty for a student of the class
    owner_id: Id | None
    teacher_ids: list[Id]
    student_count: int


class ClassStudentsIn(Schema):
    usernames: list[StudentName] = Field(..., min_length=1, max_length=MAX_STUDENTS_PER_REQUEST)


class StudentsIn(ClassStudentsIn):
    class_id: Id | None = Field(
        None, description="The class they join; optional while the teacher has one class."
    )


class EnrolmentsOut(Schema):
    enrolled: list[str]
    # Names no student you may add has: ask them to join with the class's code instead.
    not_found: list[str]


class TeacherIn(Schema):
    username: str = Field(..., min_length=1, max_length=150)


class JoinIn(Schema):
    code: str = Field(..., min_length=1, max_length=20)


class CredentialOut(Schema):
    username: str
    password: str
    # The login card's address: opening it offers to log this student in ("" for a teacher).
    badge_url: str


class BadgeOut(Schema):
    username: str
    badge_url: str


class StudentOut(Schema):
    id: Id
    username: str
    first_name: str
    last_name: str
    last_login: datetime | None


class BatchOut(Schema):
    id: Id
    status: StudentBatch.Status
    total: int
    hashed: int
    error: str
    created_at: datetime
    finished_at: datetime | None


class RosterErrorOut(Schema):
    line: int
    detail: str


class RosterImportOut(Schema):
    created: int
    updated: int
    errors: list[RosterErrorOut]
    # The new accounts' passwords and login cards (a teacher gets no card), shown only here.
    credentials: list[CredentialOut]


def class_out(school_class: SchoolClass, user: User) -> dict:
    teaches = reach.classes(user).filter(pk=school_class.pk).exists()
    return {
        "id": school_class.pk,
        "name": school_class.name,
        "code": school_class.code if teaches else "",
        "owner_id": school_class.owner_id,
        "teacher_ids": list(school_class.teachers.values_list("pk", flat=True)),
        "student_count": school_class.students.count(),
    }


def credentials(request: HttpRequest, created: list[tuple[User, str]]) -> list[dict]:
    base = bases(request)[0]  # this machine's addresses are read once, not per student
    return [
        {
            "username": user.username,
            "password": password,
            "badge_url": login_cards.badge_url(base, user.printed_card)
            if user.may_have_card
            else "",
        }
        for user, password in created
    ]


def make_students(request: HttpRequest, names: list[str], class_id: int | None) -> list[dict]:
    """The classroom page's rules (non-blank, how many, how long), one name per line. No
    password hash in the request: a worker stores them (GET /accounts/batches); the login cards
    work at once."""
    school_class = reach.target_class(request.auth, class_id)
    form = StudentListForm({"names": "\n".join(names)})
    if not form.is_valid():
        raise rosters.RosterRefused(form.errors["names"][0])
    _, created = rosters.create_students(school_class, form.cleaned_data["names"], request.auth)
    return credentials(request, created)


@router.get("/classes", response=list[ClassOut])
def list_classes(request: HttpRequest):
    """The classes you teach (the admin: every class); a student's, the classes they joined."""
    user = request.auth
    shown = reach.classes(user) if user.is_teacher else SchoolClass.objects.joined_by(user)
    return [class_out(school_class, user) for school_class in shown]


@router.post("/classes", response={201: ClassOut, 403: ErrorOut})
def create_class(request: HttpRequest, payload: ClassIn):
    teacher = require_teacher(request, ONLY_TEACHERS)
    made = SchoolClass.objects.create_for(teacher, payload.name.strip())
    return Status(201, class_out(made, teacher))


# Before /classes/{class_id}: ninja tries the paths in this order.
@router.post("/classes/join", response={200: ClassOut, 404: ErrorOut, 422: ErrorOut, 429: ErrorOut})
def join_class(request: HttpRequest, payload: JoinIn):
    """A student joins a class with the code their teacher shows."""
    ratelimits.check(request, "RATE_LIMIT_CLASS_JOINS", "class codes")
    school_class = rosters.join(request.auth, payload.code)
    return class_out(school_class, request.auth)


@router.post(
    "/classes/import", response={200: RosterImportOut, 403: ErrorOut, 413: ErrorOut, 422: ErrorOut}
)
def import_roster(request: HttpRequest, file: File[UploadedFile], confirm: Form[bool] = False):
    """A roster: a CSV of `name` (or `first name` and `last name`), `class`, and `username` and
    `email` (both optional), or a OneRoster 1.2 CSV zip
    (users.csv, classes.csv, enrollments.csv). Importing again updates, never duplicates. A
    file with a bad row changes nothing and answers its `errors` with `created` and `updated`
    0, unless `confirm` is true: then its good rows are applied and the bad ones listed.
    `credentials` are the new accounts' passwords and login cards, shown only here. A file
    that cannot be read at all is a 422 (over 1 MB: 413)."""
    teacher = require_teacher(request, ONLY_TEACHERS)
    imported = rosters.import_roster(teacher, roster_files.upload(file), confirm=confirm)
    return {
        "created": len(imported.created),
        "updated": imported.updated,
        "errors": [{"line": error.where.line, "detail": error.detail} for error in imported.errors],
        "credentials": credentials(request, imported.created),
    }


@router.get("/classes/{class_id}", response={200: ClassOut, 404: ErrorOut})
def get_class(request: HttpRequest, class_id: Id):
    return class_out(reach.visible_class(request.auth, class_id), request.auth)


@router.patch("/classes/{class_id}", response={200: ClassOut, 403: ErrorOut, 404: ErrorOut})
def rename_class(request: HttpRequest, class_id: Id, payload: ClassIn):
    """The owner's (or the admin's); its other teachers are refused."""
    school_class = reach.owned_class(request.auth, class_id)
    school_class.name = payload.name.strip()
    school_class.save(update_fields=["name"])
    return class_out(school_class, request.auth)


@router.delete("/classes/{class_id}", response={204: None, 403: ErrorOut, 404: ErrorOut})
def delete_class(request: HttpRequest, class_id: Id):
    """The class, its enrolments and its class sets go; the accounts and the material stay."""
    reach.owned_class(request.auth, class_id).delete()
    return Status(204, None)


@router.get("/classes/{class_id}/students", response={200: list[StudentOut], 404: ErrorOut})
def list_class_students(request: HttpRequest, class_id: Id):
    return reach.school_class(request.auth, class_id).students


@router.post(
    "/classes/{class_id}/students",
    response={201: list[CredentialOut], 404: ErrorOut, 422: ErrorOut},
)
def create_class_students(request: HttpRequest, class_id: Id, payload: ClassStudentsIn):
    reach.school_class(request.auth, class_id)
    return Status(201, make_students(request, payload.usernames, class_id))


@router.post("/classes/{class_id}/enrolments", response={200: EnrolmentsOut, 404: ErrorOut})
def enrol_students(request: HttpRequest, class_id: Id, payload: ClassStudentsIn):
    """Adds existing students: those you teach in another class, or in no class yet (the
    admin: any). Anyone else joins with the class's code."""
    school_class = reach.school_class(request.auth, class_id)
    enrolled, not_found = rosters.enrol_existing(request.auth, school_class, payload.usernames)
    return {"enrolled": enrolled, "not_found": not_found}


@router.delete("/classes/{class_id}/students/{user_id}", response={204: None, 404: ErrorOut})
def remove_student(request: HttpRequest, class_id: Id, user_id: Id):
    """The student leaves the class (their account and their own work stay)."""
    school_class = reach.school_class(request.auth, class_id)
    reach.student(request.auth, user_id, school_class).enrolments.filter(
        school_class=school_class
    ).delete()
    return Status(204, None)


@router.post(
    "/classes/{class_id}/teachers",
    response={200: ClassOut, 403: ErrorOut, 404: ErrorOut, 422: ErrorOut},
)
def add_teacher(request: HttpRequest, class_id: Id, payload: TeacherIn):
    """A co-teacher: another teacher's account, added by the class's owner or the admin."""
    school_class = reach.owned_class(request.auth, class_id)
    rosters.add_teacher(school_class, payload.username)
    return class_out(school_class, request.auth)


@router.get("/accounts/students", response={200: list[StudentOut], 403: ErrorOut, 404: ErrorOut})
def list_students(request: HttpRequest, class_id: Id | None = None):
    """The students you teach, in every class or in one."""
    teacher = require_teacher(request, ONLY_TEACHERS)
    school_class = reach.school_class(teacher, class_id) if class_id else None
    return reach.students(teacher, school_class)


@router.post(
    "/accounts/students",
    response={201: list[CredentialOut], 403: ErrorOut, 404: ErrorOut, 422: ErrorOut},
)
def create_students(request: HttpRequest, payload: StudentsIn):
    require_teacher(request, ONLY_TEACHERS)
    return Status(201, make_students(request, payload.usernames, payload.class_id))


@router.get("/accounts/batches", response={200: list[BatchOut], 403: ErrorOut})
def list_batches(request: HttpRequest):
    """The accounts made for your classes, newest first: a batch's passwords work once its
    status is ready."""
    return reach.batches(require_teacher(request, ONLY_TEACHERS))[:50]


@router.post(
    "/accounts/students/{student_id}/badge",
    response={200: BadgeOut, 403: ErrorOut, 404: ErrorOut},
)
def issue_badge(request: HttpRequest, student_id: Id):
    """A new login card for a student; the old one stops working and its sessions end."""
    teacher = require_teacher(request, ONLY_TEACHERS)
    student = reach.student(teacher, student_id)
    card = student.new_card(by=teacher)
    return {
        "username": student.username,
        "badge_url": login_cards.badge_url(bases(request)[0], card),
    }


@router.delete(
    "/accounts/students/{student_id}/badge", response={204: None, 403: ErrorOut, 404: ErrorOut}
)
def revoke_badge(request: HttpRequest, student_id: Id):
    teacher = require_teacher(request, ONLY_TEACHERS)
    reach.student(teacher, student_id).revoke_card(by=teacher)
    return Status(204, None)


@router.post(
    "/accounts/students/{student_id}/password",
    response={200: CredentialOut, 403: ErrorOut, 404: ErrorOut},
)
def reset_student_password(request: HttpRequest, student_id: Id):
    teacher = require_teacher(request, ONLY_TEACHERS)
    student = reach.student(teacher, student_id)
    return credentials(request, [(student, student.reset_password(by=teacher))])[0]
