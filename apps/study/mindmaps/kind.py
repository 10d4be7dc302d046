"""The mindmap, as a kind of study material a worker makes (apps/study/kinds.py)."""

from apps.study import kinds
from apps.study.mindmaps.generation import fill_mindmap
from apps.study.mindmaps.models import Mindmap
from apps.study.mindmaps.stale import cited, refresh_mindmap

MINDMAP = kinds.register(
    kinds.Kind(
        "mindmap",
        Mindmap,
        fill=fill_mindmap,
        making=lambda mindmap: "Drawing a mindmap",
        detail_url="study:mindmap-detail",
        refresh=refresh_mindmap,
        parts="nodes",
        cited=cited,
        handed_out=True,
    )
)
