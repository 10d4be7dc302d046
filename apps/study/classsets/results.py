"""What the class did with a set: each student's own figures and what the class misses most,
as the set's kind counts them (its `handed_out`, in its kind.py).

Only for the teacher who handed the set out; a student sees their own row (`figures_of`).
"""

from dataclasses import dataclass

from apps.accounts.models import User
from apps.study import kinds
from apps.study.classsets.models import ClassSet
from apps.study.quizzes.quiz_report import QuizReport


@dataclass
class Results:
    class_set: ClassSet
    kind: kinds.Kind
    students: list[kinds.Figures]
    most_missed: list[kinds.Missed] | None = None  # none for a kind that counts no misses
    quiz: QuizReport | None = None  # every attempt and the question statistics of a quiz


def figures_of(class_set: ClassSet, student: User) -> kinds.Figures:
    """A student's own figures on the set, as they may see them."""
    counted = kinds.get(class_set.kind).handed_out
    return (counted.own or counted.figures)(class_set, student)


def results(class_set: ClassSet) -> Results:
    students = list(class_set.school_class.students)
    kind = kinds.get(class_set.kind)
    counted = kind.handed_out
    return Results(
        class_set=class_set,
        kind=kind,
        students=[counted.figures(class_set, student) for student in students],
        most_missed=counted.missed(class_set, students) if counted.missed else None,
        quiz=counted.report(class_set, students) if counted.report else None,
    )
