"""The dashboard (summary, badge grid, 90-day heatmap, one day's detail) and the teacher's
class overview, one class at a time."""

from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import formats, translation
from django.views.decorators.http import require_GET

from apps.accounts.views import teacher_required
from apps.classes import reach
from apps.classes.errors import ChooseAClass
from apps.progress import classroom
from apps.progress.activity import Activity, Day
from apps.progress.badges import progress_for
from apps.progress.models import BadgeDefinition
from apps.progress.templatetags.progress import duration


def day_label(day: date, pattern: str) -> str:
    """`day|date:pattern`, remembered: the heatmap labels the same 91 days on every visit, and
    Django's date formatting took a third of the dashboard's time."""
    return formatted_day(day, pattern, translation.get_language())


@lru_cache(maxsize=2048)
def formatted_day(day: date, pattern: str, language: str | None) -> str:
    return formats.date_format(day, pattern)  # in the active language, part of the key


@dataclass(frozen=True)
class Cell:
    """One heatmap cell with everything it shows worked out here: 91 cells each resolving a
    URL and formatting labels in the template took a third of the dashboard's time."""

    iso: str
    level: int
    url: str
    label: str
    title: str
    selected: bool


def heatmap_cells(weeks: list[list[Day]], selected: date) -> list[Cell | None]:
    """The grid's cells column by column (the CSS flows them into 7 rows); None is blank."""
    cells: list[Cell | None] = []
    for day in (day for week in weeks for day in week):
        if not day.in_window:
            cells.append(None)
            continue
        iso, time = day.date.isoformat(), duration(day.seconds)
        sessions = f"{day.sessions} session{'' if day.sessions == 1 else 's'}"
        cells.append(
            Cell(
                iso=iso,
                level=day.level,
                url=reverse("progress:day", args=[iso]),
                label=f"{day_label(day.date, 'l j F Y')}: {time}, {sessions}",
                title=f"{day_label(day.date, 'D j M')}: {time}",
                selected=day.date == selected,
            )
        )
    return cells


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


def dashboard_context(activity: Activity, selected: date) -> dict:
    weeks = activity.heatmap_weeks()
    badges = progress_for(activity.user, activity)
    return {
        "activity": activity,
        "zone": activity.zone.key,
        "cells": heatmap_cells(weeks, selected),
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
    context = dashboard_context(activity, activity.today) | day_context(activity, activity.today)
    return render(request, "progress/index.html", context)


@require_GET
@login_required
def day_detail(request: HttpRequest, day: str) -> HttpResponse:
    activity = Activity(request.user)
    shown = parse_day(day, activity)
    selected = day_context(activity, shown) | {"zone": activity.zone.key}
    if request.htmx:
        return render(request, "progress/index.html#day-detail", selected)
    return render(request, "progress/index.html", dashboard_context(activity, shown) | selected)


@require_GET
@teacher_required
def class_overview(request: HttpRequest) -> HttpResponse:
    """One class the teacher teaches (?class=, needed when they teach several): its students'
    figures and the questions of its quizzes missed most."""
    asked = request.GET.get("class", "")
    if asked and not asked.isdigit():
        raise Http404("No such class.")
    try:
        school_class = reach.chosen_class(request.user, int(asked) if asked else None)
    except ChooseAClass:
        school_class = None  # the page asks which
    context = {
        "classes": reach.classes(request.user),
        "school_class": school_class,
        "window_days": classroom.WINDOW_DAYS,
    }
    if school_class is not None:
        context["figures"] = classroom.student_figures(school_class)
        context["missed"] = classroom.most_missed_questions(school_class)
    return render(request, "progress/class.html", context)
