"""The mindmap, as a kind of study material a worker makes and a teacher hands out to the class
(apps/study/kinds.py): a student's only figure is "started" (they arranged it)."""

from apps.study import kinds
from apps.study.mindmaps.generation import fill_mindmap
from apps.study.mindmaps.models import Mindmap, MindmapArrangement
from apps.study.mindmaps.stale import cited, refresh_mindmap


def figures(class_set, student) -> kinds.Figures:
    mindmap = class_set.item
    figures = kinds.Figures(student)
    arrangement = MindmapArrangement.objects.filter(mindmap=mindmap, student=student).first()
    if arrangement is not None:
        figures.started = True
        figures.detail = "arranged it"
        figures.last_activity = arrangement.updated_at
    return figures


MINDMAP = kinds.register(
    kinds.Kind(
        "mindmap",
        Mindmap,
        fill=fill_mindmap,
        making=lambda mindmap: "Drawing a mindmap",
        detail_url="study:mindmap-detail",
        urls=("mindmaps/", "apps.study.mindmaps.urls"),
        router="apps.study.mindmaps.api.router",
        tab=kinds.Tab("Mindmaps", "study:mindmap-list", 4),
        refresh=refresh_mindmap,
        parts="nodes",
        part="mindmap node",
        cited=cited,
        handed_out=kinds.HandOut("Arranged", figures),
    )
)
