"""A teacher's view of one class: figures per student and the questions of the class's quizzes
missed most.

Only figures (study time, sessions, streak, quizzes taken and their average score) and the
questions of quizzes handed out to this class: nothing here reads chats, documents or anything
a student made for themselves (docs/progress.md).
"""

from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.db.models import Avg, Count
from django.utils import timezone

from apps.accounts.models import User
from apps.classes.models import SchoolClass
from apps.progress.activity import current_run
from apps.progress.models import Event, LocalZone, MissedQuestion, StudySession

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


def student_figures(school_class: SchoolClass) -> list[StudentFigures]:
    """The class's students, each with their figures over the window."""
    now = timezone.now()
    since = now - timedelta(days=WINDOW_DAYS)
    students = list(school_class.students)
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
    streaks = current_streaks(students, now)
    return [
        StudentFigures(
            student=student,
            study_seconds=int(seconds.get(student.pk, 0)),
            sessions=sessions.get(student.pk, 0),
            current_streak=streaks[student.pk],
            quizzes=quizzes.get(student.pk, {}).get("taken", 0),
            average_score=quizzes.get(student.pk, {}).get("average"),
        )
        for student in students
    ]


def current_streaks(students: list[User], now: datetime) -> dict[int, int]:
    """Each student's current streak in their own zone, from one query over the recent days
    rather than everyone's whole history; only a streak reaching back to the first day read
    reads further back."""
    zones = LocalZone.objects.zones_for(students)
    days = WINDOW_DAYS + 2
    while True:
        dates: dict[int, set[date]] = defaultdict(set)
        messages = Event.objects.filter(
            user__in=students, kind=Event.Kind.MESSAGE, at__gte=now - timedelta(days=days)
        )
        for user_id, at in messages.values_list("user_id", "at"):
            dates[user_id].add(at.astimezone(zones[user_id]).date())
        streaks = {
            student.pk: current_run(dates[student.pk], now.astimezone(zones[student.pk]).date())
            for student in students
        }
        if max(streaks.values(), default=0) < days - 2:  # every streak began after the first day
            return streaks
        days *= 4


def most_missed_questions(school_class: SchoolClass) -> list[dict]:
    """The questions of the quizzes handed out to the class that its students got wrong most
    often in the window, with their source."""
    return list(
        MissedQuestion.objects.filter(
            event__school_class=school_class,
            event__user__in=school_class.students,
            event__at__gte=timezone.now() - timedelta(days=WINDOW_DAYS),
        )
        .values("question", "source_label", "source_url")
        .annotate(misses=Count("id"), students=Count("event__user", distinct=True))
        .order_by("-misses", "-students", "question")[:MOST_MISSED]
    )
