"""The workshop and its lessons, as kinds of study material a worker makes
(apps/study/kinds.py): a worker writes the outline, and later each lesson when it is opened."""

from apps.study import kinds
from apps.study.workshops.generation import fill_lesson, fill_workshop
from apps.study.workshops.models import Lesson, Workshop
from apps.study.workshops.stale import cited, refresh_workshop

WORKSHOP = kinds.register(
    kinds.Kind(
        "workshop",
        Workshop,
        fill=fill_workshop,
        making=lambda workshop: f"Planning a workshop of {workshop.requested} lessons",
        detail_url="study:workshop-detail",
        refresh=refresh_workshop,
        parts="lessons",
        cited=cited,
        handed_out=True,
    )
)
LESSON = kinds.register(kinds.Kind("lesson", Lesson, fill=fill_lesson))
