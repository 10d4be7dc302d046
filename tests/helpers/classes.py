"""Classes of the tests: a teacher's class with some students in it."""

from apps.accounts.models import User
from apps.classes.models import Enrolment, SchoolClass


def make_class(teacher: User, students=(), name: str = "7b") -> SchoolClass:
    school_class = SchoolClass.objects.create_for(teacher, name)
    school_class.enrol(students, Enrolment.Role.STUDENT)
    return school_class


def class_of(teacher: User) -> SchoolClass:
    """The one class `teacher` teaches (made for them when they teach none yet)."""
    taught = SchoolClass.objects.filter(
        pk__in=Enrolment.objects.teaching(teacher).values("school_class")
    )
    return taught.get() if taught.exists() else make_class(teacher)
