"""What a teacher reaches, decided in one place: the classes they teach (the admin: every
class), the students enrolled in them, and what those classes hold (class sets and their
results, login cards, the batches their accounts were made in). Every page, API route, export
and socket that shows a class or a student to a teacher looks it up here, and anything else is
a 404, as if it did not exist. A student's own work (personal documents, chats and what is made
from them) is reached by no one else: teachers see class-set material and figures only
(docs/classroom.md#who-reaches-what)."""

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from apps.accounts.models import StudentBatch, User
from apps.classes.errors import ChooseAClass, NotAllowed
from apps.classes.models import Enrolment, SchoolClass

DEFAULT_NAME = "My class"


def classes(user) -> QuerySet[SchoolClass]:
    return SchoolClass.objects.taught_by(user)


def school_class(user, pk: int) -> SchoolClass:
    return get_object_or_404(classes(user), pk=pk)


def chosen_class(user, pk: int | None) -> SchoolClass | None:
    """The class a view of one class shows: the one named (a 404 unless `user` teaches it) or,
    when none is, the one class `user` teaches (None if they teach none; ChooseAClass if
    several)."""
    if pk is not None:
        return school_class(user, pk)
    taught = list(classes(user)[:2])
    if len(taught) > 1:
        raise ChooseAClass("You teach several classes: say which one (class_id).")
    return taught[0] if taught else None


def visible_class(user, pk: int) -> SchoolClass:
    """A class `user` teaches or is a student of."""
    return get_object_or_404(classes(user) | SchoolClass.objects.joined_by(user), pk=pk)


def owned_class(user, pk: int) -> SchoolClass:
    """A class `user` may rename, delete and give co-teachers: their own (the admin: any). Its
    other teachers are refused; anyone else finds nothing."""
    found = school_class(user, pk)
    if not (user.is_admin or found.owner_id == user.pk):
        raise NotAllowed("Only the teacher who made this class (or the admin) can do that.")
    return found


def students(user, school_class: SchoolClass | None = None) -> QuerySet[User]:
    """The students `user` teaches (in `school_class` only, when given); the admin's are every
    student, in a class or not."""
    if school_class is None and user.is_authenticated and user.is_admin:
        return User.objects.students()
    taught = classes(user) if school_class is None else classes(user).filter(pk=school_class.pk)
    enrolled = Enrolment.objects.filter(role=Enrolment.Role.STUDENT, school_class__in=taught)
    return User.objects.students().filter(pk__in=enrolled.values("user"))


def student(user, pk: int, school_class: SchoolClass | None = None) -> User:
    return get_object_or_404(students(user, school_class), pk=pk)


def batches(user, school_class: SchoolClass | None = None) -> QuerySet[StudentBatch]:
    """The batches of accounts made for the classes `user` teaches."""
    taught = classes(user) if school_class is None else classes(user).filter(pk=school_class.pk)
    made = Enrolment.objects.filter(school_class__in=taught, batch__isnull=False)
    return StudentBatch.objects.filter(pk__in=made.values("batch"))


def batch(user, pk: int, school_class: SchoolClass | None = None) -> StudentBatch:
    return get_object_or_404(batches(user, school_class), pk=pk)


def target_class(user, pk: int | None) -> SchoolClass:
    """The class something new is for: the one named (a 404 unless `user` teaches it) or, when
    none is, the one class `user` teaches; a teacher without a class gets one."""
    if pk is not None:
        return school_class(user, pk)
    own = list(SchoolClass.objects.filter(enrolments__in=Enrolment.objects.teaching(user))[:2])
    if len(own) == 1:
        return own[0]
    if own:
        raise ChooseAClass("You teach several classes: say which one (class_id).")
    return SchoolClass.objects.create_for(user, DEFAULT_NAME)
