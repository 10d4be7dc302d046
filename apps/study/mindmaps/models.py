"""Mindmaps: a validated topic tree, its chosen layout, dragged positions and folded branches."""

from django.conf import settings
from django.db import models

from apps.study.mindmaps.tree import node_ids
from apps.study.ownership import OwnedQuerySet


class Mindmap(models.Model):
    class Layout(models.TextChoices):
        LEFT_RIGHT = "lr", "Left to right"
        TOP_BOTTOM = "tb", "Top to bottom"
        RADIAL = "radial", "Radial"

    # A dragged node further out than this is a bad request, not a place on the map.
    POSITION_LIMIT = 100_000.0

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mindmaps"
    )
    title = models.CharField(max_length=200)
    tree = models.JSONField(help_text="{title, note?, source?, children: [...]}, validated.")
    layout = models.CharField(max_length=10, choices=Layout.choices, default=Layout.LEFT_RIGHT)
    positions = models.JSONField(
        default=dict, blank=True, help_text="Dragged node centres: {layout: {node_id: [x, y]}}."
    )
    collapsed = models.JSONField(default=list, blank=True, help_text="Ids of folded nodes.")
    category_ids = models.JSONField(default=list, blank=True)
    document_ids = models.JSONField(default=list, blank=True)
    model_label = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.title

    def move_node(self, node_id: str, layout: str, x: float, y: float) -> None:
        """Remember where a node was dragged to, in that layout; unknown nodes are refused."""
        if node_id not in node_ids(self.tree):
            raise KeyError(node_id)
        self.positions = {**self.positions}
        self.positions[layout] = {**self.positions.get(layout, {}), node_id: [x, y]}
        self.save(update_fields=["positions", "updated_at"])

    def reset_layout(self) -> None:
        """Forget dragged positions and folds of the current layout: back to the computed one."""
        self.positions = {k: v for k, v in self.positions.items() if k != self.layout}
        self.collapsed = []
        self.save(update_fields=["positions", "collapsed", "updated_at"])

    def toggle(self, node_id: str) -> None:
        """Fold or unfold a branch."""
        if node_id not in node_ids(self.tree):
            raise KeyError(node_id)
        folded = set(self.collapsed)
        folded ^= {node_id}
        self.collapsed = sorted(folded)
        self.save(update_fields=["collapsed", "updated_at"])
