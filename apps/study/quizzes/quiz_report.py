"""A class quiz's report for its teacher: every attempt of each student with the figure the
policy grades, and per question the facility, the discrimination index and how many chose each
option.

Questions and options are the quiz's own (attempts store answers in that order, whatever order
a student saw). The statistics read the graded attempts: a student's first, best or latest, or
all of them when the policy averages. The discrimination index is Moodle's: the Pearson
correlation, across those attempts, of the question's score with the score on the rest of the
quiz. An attempt that answered an older version of a question counts for none of its figures
and is counted as "on an older version" instead.
"""

from dataclasses import dataclass, field
from datetime import datetime
from math import sqrt

from apps.accounts.models import User
from apps.study.classsets.policy import Grading
from apps.study.quizzes.models import Attempt, Quiz


@dataclass
class AttemptRow:
    number: int  # the student's first, second, ... attempt
    started_at: datetime
    submitted_at: datetime
    correct: int
    total: int
    percent: int
    old_version: bool  # a question it answered changed or went since
    graded: bool  # counts for the student's graded figure


@dataclass
class StudentAttempts:
    student: User
    attempts: list[AttemptRow]
    graded_percent: int | None


@dataclass
class OptionCount:
    number: int  # from 0, in the quiz's own order
    text: str
    correct: bool
    chosen: int


@dataclass
class QuestionStats:
    question_id: int
    position: int  # in the quiz's own order, from 0
    text: str
    answered: int  # graded attempts on its current version (left open included)
    unanswered: int
    facility: int | None  # percent of them right
    discrimination: float | None  # -1 .. 1; None with fewer than two or no spread
    older_version: int  # graded attempts on an older version of it
    options: list[OptionCount] = field(default_factory=list)


@dataclass
class QuizReport:
    grading: str
    students: list[StudentAttempts]
    questions: list[QuestionStats]


def graded(attempts: list[Attempt], grading: str) -> list[Attempt]:
    """The submitted attempts (oldest first) that make the graded figure."""
    if not attempts:
        return []
    if grading == Grading.FIRST:
        return attempts[:1]
    if grading == Grading.LATEST:
        return attempts[-1:]
    if grading == Grading.BEST:
        return [max(attempts, key=lambda a: (a.percent, -attempts.index(a)))]
    return list(attempts)


def graded_percent(chosen: list[Attempt]) -> int | None:
    if not chosen:
        return None
    return round(sum(a.percent for a in chosen) / len(chosen))


def pearson(xs: list[float], ys: list[float]) -> float | None:
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return round(sxy / sqrt(sxx * syy), 2)


def submitted_by(quiz: Quiz, students: list[User]) -> dict[int, list[Attempt]]:
    by_student: dict[int, list[Attempt]] = {s.pk: [] for s in students}
    rows = quiz.attempts.filter(user__in=students, submitted_at__isnull=False)
    for attempt in rows.order_by("submitted_at", "pk"):
        by_student[attempt.user_id].append(attempt)
    return by_student


def question_stats(quiz: Quiz, attempts: list[Attempt]) -> list[QuestionStats]:
    stats = []
    for position, question in enumerate(quiz.questions.all()):
        scores, rests, counts, unanswered, older = [], [], [0] * len(question.options), 0, 0
        for attempt in attempts:
            asked = {pk: (i, version) for i, (pk, version) in enumerate(attempt.asked)}
            if question.pk not in asked:
                continue
            index, version = asked[question.pk]
            if version != question.version:
                older += 1
                continue
            chosen = attempt.answers[index] if index < len(attempt.answers) else None
            right = int(chosen == question.correct_index)
            scores.append(right)
            rests.append(attempt.correct - right)
            if chosen is None or not 0 <= chosen < len(counts):
                unanswered += 1
            else:
                counts[chosen] += 1
        stats.append(
            QuestionStats(
                question_id=question.pk,
                position=position,
                text=question.text,
                answered=len(scores),
                unanswered=unanswered,
                facility=round(100 * sum(scores) / len(scores)) if scores else None,
                discrimination=pearson(scores, rests),
                older_version=older,
                options=[
                    OptionCount(i, text, i == question.correct_index, counts[i])
                    for i, text in enumerate(question.options)
                ],
            )
        )
    return stats


def quiz_report(class_set, students: list[User]) -> QuizReport:
    """Every attempt of the students on a class set's quiz, and its question statistics."""
    quiz, grading = class_set.item, class_set.grading
    rows, counted = [], []
    version = quiz.version()
    by_student = submitted_by(quiz, students)
    for student in students:
        attempts = by_student[student.pk]
        chosen = graded(attempts, grading)
        counted.extend(chosen)
        rows.append(
            StudentAttempts(
                student=student,
                attempts=[
                    AttemptRow(
                        number=number,
                        started_at=a.started_at,
                        submitted_at=a.submitted_at,
                        correct=a.correct,
                        total=a.total,
                        percent=a.percent,
                        old_version=bool(a.asked) and a.asked != version,
                        graded=a in chosen,
                    )
                    for number, a in enumerate(attempts, 1)
                ],
                graded_percent=graded_percent(chosen),
            )
        )
    return QuizReport(grading=grading, students=rows, questions=question_stats(quiz, counted))
