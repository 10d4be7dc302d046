"""Who is in a class, and how they get there: accounts made for it, existing students added by
a teacher, co-teachers added by its owner, students joining with its code. Roster files (a CSV,
a OneRoster zip) end up here too (roster_files.py)."""

from django.db import transaction
from django.db.models.functions import Lower

from apps.accounts import tasks
from apps.accounts.models import StudentBatch, User
from apps.classes import reach
from apps.classes.errors import ClassError, NotAStudent, WrongCode
from apps.classes.models import Enrolment, SchoolClass, normalise_code


class RosterRefused(ClassError):
    status = 422


def create_students(
    school_class: SchoolClass, names: list[str], by: User
) -> tuple[StudentBatch, list[tuple[User, str]]]:
    """One account per name, in `school_class`, each with a password and a login card shown
    only now; a worker stores the passwords (apps/accounts/batches.py)."""
    with transaction.atomic():
        batch, created = User.objects.create_students(names, by=by)
        school_class.enrol([user for user, _ in created], Enrolment.Role.STUDENT, batch=batch)
    tasks.start(batch)
    return batch, created


def addable(user):
    """The students `user` may add to a class by name: the admin any; a teacher those they
    teach already, and those in no class yet. Anyone else joins with the class's code, so no
    teacher reaches another teacher's students by adding them."""
    if user.is_admin:
        return User.objects.students()
    in_a_class = Enrolment.objects.filter(role=Enrolment.Role.STUDENT).values("user")
    return reach.students(user) | User.objects.students().exclude(pk__in=in_a_class)


def enrol_existing(user, school_class: SchoolClass, usernames: list[str]) -> tuple[list, list]:
    """(enrolled, not found): a name that is not one of `addable` is not found, whether or not
    such an account exists."""
    wanted = {name.strip().lower(): name.strip() for name in usernames}
    named = addable(user).annotate(lower=Lower("username")).filter(lower__in=wanted)
    found = {student.lower: student for student in named}
    school_class.enrol(found.values(), Enrolment.Role.STUDENT)
    enrolled = sorted(student.username for student in found.values())
    return enrolled, sorted(name for key, name in wanted.items() if key not in found)


def add_teacher(school_class: SchoolClass, username: str) -> User:
    teacher = User.objects.filter(username__iexact=username.strip(), is_staff=True).first()
    if teacher is None:
        raise RosterRefused(f"No teacher's account is called {username.strip()!r}.")
    school_class.enrol([teacher], Enrolment.Role.TEACHER)
    return teacher


def join(user: User, code: str) -> SchoolClass:
    """`user` (a student) joins the class whose code they typed."""
    if user.is_teacher:
        raise NotAStudent("Teachers join a class when its owner adds them; codes are for students.")
    school_class = SchoolClass.objects.filter(code=normalise_code(code)).first()
    if school_class is None:
        raise WrongCode("No class has this code. Check it with your teacher.")
    school_class.enrol([user], Enrolment.Role.STUDENT)
    return school_class
