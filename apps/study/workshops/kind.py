"""The workshop and its lessons, as kinds of study material a worker makes (apps/study/kinds.py):
a worker writes the outline, and later each lesson when it is opened. A teacher hands the
workshop out to the class; a student's figure is the lessons they completed."""

from django.db.models import Max

from apps.study import kinds
from apps.study.workshops.generation import fill_lesson, fill_workshop
from apps.study.workshops.models import Lesson, LessonCompletion, Workshop
from apps.study.workshops.stale import cited, refresh_workshop


def figures(class_set, student) -> kinds.Figures:
    workshop = class_set.item
    figures = kinds.Figures(student)
    total = workshop.lessons.count()
    done = LessonCompletion.objects.filter(lesson__workshop=workshop, student=student)
    count = done.count()
    figures.started = count > 0
    figures.finished = total > 0 and count == total
    figures.score = round(100 * count / total) if total and count else None
    figures.detail = f"{count} of {total} lessons" if count else ""
    figures.last_activity = done.aggregate(last=Max("completed_at"))["last"]
    return figures


WORKSHOP = kinds.register(
    kinds.Kind(
        "workshop",
        Workshop,
        fill=fill_workshop,
        making=lambda workshop: f"Planning a workshop of {workshop.requested} lessons",
        detail_url="study:workshop-detail",
        urls=("workshops/", "apps.study.workshops.urls"),
        router="apps.study.workshops.api.router",
        tab=kinds.Tab("Workshop", "study:workshop-list", 2),
        refresh=refresh_workshop,
        parts="lessons",
        part="lesson",
        cited=cited,
        handed_out=kinds.HandOut("Lessons", figures),
    )
)
LESSON = kinds.register(kinds.Kind("lesson", Lesson, fill=fill_lesson))
