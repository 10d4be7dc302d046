"""Classes of the tests: a teacher's class with some students in it."""

from apps.accounts.models import User
from apps.classes.models import Enrolment, SchoolClass


def make_class(teacher: User, students=(), name: str = "7b") -> SchoolClass:
    school_class = SchoolClass.objects.create_for(teacher, name)
    school_class.enrol(students, Enrolment.Role.STUDENT)
    return school_class
