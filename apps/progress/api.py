"""Dashboard data (summary, heatmap, achievements, one day) and the teacher's class summary."""

from datetime import date, datetime

from django.http import HttpRequest
from ninja import Router, Schema
from ninja.errors import HttpError

from apps.accounts.api import ErrorOut, Id, require_teacher
from apps.classes import reach
from apps.progress import classroom
from apps.progress.activity import EARLIEST_DAY, Activity
from apps.progress.badges import progress_for

router = Router(tags=["progress"])


class SummaryOut(Schema):
    time_zone: str
    total_seconds: int
    sessions: int
    messages: int
    current_streak: int
    longest_streak: int
    badges_earned: int
    badges_total: int


class DayOut(Schema):
    date: date
    seconds: int
    level: int
    sessions: int
    messages: int


class HeatmapOut(Schema):
    time_zone: str
    first_day: date
    last_day: date
    days: list[DayOut]


class AchievementOut(Schema):
    code: str
    name: str
    description: str
    icon: str
    category: str
    metric: str
    target: int
    value: int
    earned: bool
    earned_at: datetime | None
    next_level: str | None


class EarnedOut(Schema):
    code: str
    name: str
    icon: str
    earned_at: datetime


class DayDetailOut(DayOut):
    time_zone: str
    badges: list[EarnedOut]


class StudentSummaryOut(Schema):
    id: Id
    username: str
    study_seconds: int
    sessions: int
    current_streak: int
    quizzes: int
    average_score: float | None

    @staticmethod
    def resolve_id(row: classroom.StudentFigures) -> int:
        return row.student.pk

    @staticmethod
    def resolve_username(row: classroom.StudentFigures) -> str:
        return row.student.username


class MissedQuestionOut(Schema):
    question: str
    source_label: str
    source_url: str
    misses: int
    students: int


class ClassSummaryOut(Schema):
    days: int
    students: list[StudentSummaryOut]
    missed_questions: list[MissedQuestionOut]


@router.get("/summary", response=SummaryOut)
def summary(request: HttpRequest):
    activity = Activity(request.auth)
    badges = progress_for(request.auth, activity)
    return {
        "time_zone": activity.zone.key,
        "total_seconds": activity.total_seconds,
        "sessions": activity.session_count,
        "messages": activity.message_figures.count,
        "current_streak": activity.current_streak,
        "longest_streak": activity.longest_streak,
        "badges_earned": sum(1 for b in badges if b.earned),
        "badges_total": len(badges),
    }


@router.get("/heatmap", response=HeatmapOut)
def heatmap(request: HttpRequest):
    activity = Activity(request.auth)
    return {
        "time_zone": activity.zone.key,
        "first_day": activity.heatmap_first_day,
        "last_day": activity.today,
        "days": activity.heatmap_days(),
    }


@router.get("/achievements", response=list[AchievementOut])
def achievements(request: HttpRequest):
    return [
        {
            "code": item.badge.code,
            "name": item.badge.name,
            "description": item.badge.description,
            "icon": item.badge.icon,
            "category": item.badge.category,
            "metric": item.badge.metric,
            "target": item.badge.target,
            "value": item.value,
            "earned": item.earned is not None,
            "earned_at": item.earned.earned_at if item.earned else None,
            "next_level": item.badge.next_level.code if item.badge.next_level else None,
        }
        for item in progress_for(request.auth)
    ]


@router.get("/days/{day}", response={200: DayDetailOut, 404: ErrorOut})
def day_detail(request: HttpRequest, day: date):
    """A day from 2000 to tomorrow (a zone ahead); any other date is well formed but has no
    figures, a 404 as on its page."""
    activity = Activity(request.auth)
    if not activity.can_show(day):
        raise HttpError(
            404,
            f"No study figures for {day}: pick a day from {EARLIEST_DAY} to "
            f"{activity.last_day_shown}.",
        )
    figures = activity.day(day)
    return {
        **{field: getattr(figures, field) for field in DayOut.model_fields},
        "time_zone": activity.zone.key,
        "badges": [
            {
                "code": earned.badge.code,
                "name": earned.badge.name,
                "icon": earned.badge.icon,
                "earned_at": earned.earned_at,
            }
            for earned in activity.earned_on(day)
        ],
    }


@router.get("/class", response={200: ClassSummaryOut, 403: ErrorOut, 404: ErrorOut, 422: ErrorOut})
def class_summary(request: HttpRequest, class_id: Id | None = None):
    """One class you teach (`class_id`, optional while you teach one): its students' figures
    over the last days and the questions of its quizzes missed most. Nothing a student made for
    themselves shows here."""
    teacher = require_teacher(request, "Only teachers see the class overview.")
    school_class = reach.chosen_class(teacher, class_id)
    if school_class is None:
        return {"days": classroom.WINDOW_DAYS, "students": [], "missed_questions": []}
    return {
        "days": classroom.WINDOW_DAYS,
        "students": classroom.student_figures(school_class),
        "missed_questions": classroom.most_missed_questions(school_class),
    }
