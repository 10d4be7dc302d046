"""A teacher's view of the class: figures per student and the quiz questions missed most.

Only figures and quiz questions: nothing here reads chats or documents.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Avg, Count
from django.utils import timezone

from apps.accounts.models import User
from apps.progress.activity import Activity
from apps.progress.models import Event, MissedQuestion, StudySession

WINDOW_DAYS = 30
MOST_MISSED = 10


@dataclass
class StudentFigures:
    student: User
    study_seconds: int
    sessions: int
    current_streak: int
    quizzes: int
    average_score: float | None


def window_start(now: datetime | None = None) -> datetime:
    return (now or timezone.now()) - timedelta(days=WINDOW_DAYS)


def student_figures(now: datetime | None = None) -> list[StudentFigures]:
    now = now or timezone.now()
    since = window_start(now)
    students = list(User.objects.students())
    seconds: dict[int, float] = {}
    sessions: dict[int, int] = {}
    for user_id, started, ended in StudySession.objects.filter(
        user__in=students, started_at__gte=since
    ).values_list("user_id", "started_at", "ended_at"):
        seconds[user_id] = seconds.get(user_id, 0) + (ended - started).total_seconds()
        sessions[user_id] = sessions.get(user_id, 0) + 1
    quizzes = {
        row["user_id"]: row
        for row in Event.objects.filter(user__in=students, kind=Event.Kind.QUIZ, at__gte=since)
        .values("user_id")
        .annotate(taken=Count("id"), average=Avg("score_percent"))
    }
    return [
        StudentFigures(
            student=student,
            study_seconds=int(seconds.get(student.pk, 0)),
            sessions=sessions.get(student.pk, 0),
            current_streak=Activity(student, now=now).current_streak,
            quizzes=quizzes.get(student.pk, {}).get("taken", 0),
            average_score=quizzes.get(student.pk, {}).get("average"),
        )
        for student in students
    ]


def most_missed_questions(now: datetime | None = None, limit: int = MOST_MISSED) -> list[dict]:
    """The questions students got wrong most often in the window, with their source."""
    return list(
        MissedQuestion.objects.filter(
            event__user__in=User.objects.students(), event__at__gte=window_start(now)
        )
        .values("question", "source_label", "source_url")
        .annotate(misses=Count("id"), students=Count("event__user", distinct=True))
        .order_by("-misses", "-students", "question")[:limit]
    )
