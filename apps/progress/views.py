"""The dashboard (summary, badge grid, 90-day heatmap, one day's detail) and the teacher's
class overview."""

from datetime import date

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from apps.accounts.views import teacher_required
from apps.progress import classroom
from apps.progress.activity import Activity
from apps.progress.badges import progress_for
from apps.progress.models import BadgeDefinition


def parse_day(value: str, activity: Activity) -> date:
    try:
        day = date.fromisoformat(value)
    except ValueError as error:
        raise Http404("Not a date.") from error
    if not activity.can_show(day):
        raise Http404("No study figures for that day.")
    return day


def day_context(activity: Activity, day: date) -> dict:
    return {"selected": activity.day(day), "selected_badges": activity.earned_on(day)}


def dashboard_context(activity: Activity) -> dict:
    weeks = activity.heatmap_weeks()
    badges = progress_for(activity.user, activity)
    return {
        "activity": activity,
        "zone": activity.zone.key,
        "weeks": weeks,
        "weekdays": [cell.date for cell in weeks[0]],
        "categories": [
            (label, [b for b in badges if b.badge.category == value])
            for value, label in BadgeDefinition.Category.choices
        ],
        "earned_count": sum(1 for b in badges if b.earned),
        "badge_count": len(badges),
    }


@require_GET
@login_required
def index(request: HttpRequest) -> HttpResponse:
    activity = Activity(request.user)
    context = dashboard_context(activity) | day_context(activity, activity.today)
    return render(request, "progress/index.html", context)


@require_GET
@login_required
def day_detail(request: HttpRequest, day: str) -> HttpResponse:
    activity = Activity(request.user)
    selected = day_context(activity, parse_day(day, activity)) | {"zone": activity.zone.key}
    if request.htmx:
        return render(request, "progress/index.html#day-detail", selected)
    return render(request, "progress/index.html", dashboard_context(activity) | selected)


@require_GET
@teacher_required
def class_overview(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "progress/class.html",
        {
            "figures": classroom.student_figures(),
            "missed": classroom.most_missed_questions(),
            "window_days": classroom.WINDOW_DAYS,
        },
    )
