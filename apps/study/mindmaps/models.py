"""Mindmaps: a validated topic tree, its chosen layout, dragged positions and folded branches."""

import math

from django.conf import settings
from django.db import models, transaction

from apps.progress import tracking
from apps.study.errors import MindmapError
from apps.study.generation_job import Generated, GenerationQuerySet, one_per_request
from apps.study.generator import EXTRACTIVE
from apps.study.mindmaps.tree import clean_tree, node_ids
from apps.study.ownership import get_visible
from apps.study.quota import make_room, size_of


class MindmapQuerySet(GenerationQuerySet):
    def create_from(self, owner, raw_tree: object, title: str = "", **fields):
        """A mindmap of the tree, validated (see tree.clean_tree), recorded for progress;
        (the mindmap, badges just earned)."""
        tree = clean_tree(raw_tree)
        title = (title or tree["title"])[:200]
        with transaction.atomic():
            make_room(owner, size_of(tree), title)
            mindmap = self.create(owner=owner, title=title, tree=tree, **fields)
        return mindmap, tracking.record_mindmap_created(owner)

    def arranged(self, user, pk: int) -> "Mindmap":
        """Mindmap `pk` as `user` reads it (their own, or one handed out to their class) in
        their own arrangement; any other is Http404, as `get_visible` says."""
        return get_visible(self.readable_by, user, pk=pk).arranged_for(user)


class Mindmap(Generated):
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

    objects = MindmapQuerySet.as_manager()

    # Set by arranged_for: the student whose own arrangement this instance shows and saves.
    arranged_by = None

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [one_per_request("mindmap")]

    def __str__(self) -> str:
        return self.title

    @property
    def extractive(self) -> bool:
        """Drawn from the documents' own structure (the extractive method, or the fallback when
        the model's tree was unusable): no model wrote a node. Its label says so."""
        return self.model_label.startswith(EXTRACTIVE)

    def arranged_for(self, user) -> "Mindmap":
        """This mindmap in `user`'s arrangement (layout, dragged nodes, folds). The owner's is
        on the mindmap; a student studying one handed out to the class starts from the
        owner's and keeps their own changes in a MindmapArrangement: moving, folding,
        switching layout and resetting then save there, never on the mindmap."""
        if user.pk == self.owner_id:
            return self
        mine = MindmapArrangement.objects.filter(mindmap=self, student=user).first()
        if mine is not None:
            self.layout, self.positions, self.collapsed = (
                mine.layout,
                mine.positions,
                mine.collapsed,
            )
        self.arranged_by = user
        return self

    def save_arrangement(self, fields: list[str]) -> None:
        if self.arranged_by is None:
            self.save(update_fields=[*fields, "updated_at"])
            return
        MindmapArrangement.objects.update_or_create(
            mindmap=self,
            student=self.arranged_by,
            defaults={
                "layout": self.layout,
                "positions": self.positions,
                "collapsed": self.collapsed,
            },
        )

    def change(self, *, title: str | None = None, layout: str | None = None) -> None:
        """Rename it or draw it in another layout; what is not given stays."""
        if title is not None:
            self.title = self.said_title(title)
        if layout is not None:
            self.layout = self.known_layout(layout)
        self.save_arrangement(["title", "layout"])

    @staticmethod
    def said_title(title: str) -> str:
        """A title given for a mindmap, made or renamed, must say something."""
        if not title.strip():
            raise MindmapError("Give the mindmap a name.")
        return title.strip()[:200]

    def known_layout(self, layout: str) -> str:
        if layout not in self.Layout.values:
            raise MindmapError(f"Choose a layout: {', '.join(self.Layout.values)}.")
        return layout

    def known_node(self, node_id: str) -> str:
        if node_id not in node_ids(self.tree):
            raise MindmapError(f"No node {node_id!r} in this mindmap.")
        return node_id

    def move_node(self, node_id: str, layout: str, x: float, y: float) -> None:
        """Remember where a node was dragged to, in that layout."""
        self.known_node(node_id)
        self.known_layout(layout)
        limit = self.POSITION_LIMIT
        if not all(math.isfinite(value) and -limit <= value <= limit for value in (x, y)):
            raise MindmapError(f"A node stays within ±{limit:,.0f} of the centre.")
        self.positions = {**self.positions}
        self.positions[layout] = {**self.positions.get(layout, {}), node_id: [x, y]}
        self.save_arrangement(["positions"])

    def reset_layout(self) -> None:
        """Forget dragged positions and folds of the current layout: back to the computed one."""
        self.positions = {k: v for k, v in self.positions.items() if k != self.layout}
        self.collapsed = []
        self.save_arrangement(["positions", "collapsed"])

    def toggle(self, node_id: str) -> None:
        """Fold or unfold a branch."""
        folded = set(self.collapsed) ^ {self.known_node(node_id)}
        self.collapsed = sorted(folded)
        self.save_arrangement(["collapsed"])


class MindmapArrangement(models.Model):
    """A student's own layout, dragged positions and folds of a mindmap handed out to the
    class (see Mindmap.arranged_for)."""

    mindmap = models.ForeignKey(Mindmap, on_delete=models.CASCADE, related_name="arrangements")
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mindmap_arrangements"
    )
    layout = models.CharField(max_length=10, choices=Mindmap.Layout.choices)
    positions = models.JSONField(default=dict, blank=True)
    collapsed = models.JSONField(default=list, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["mindmap", "student"], name="one_arrangement_per_student"
            )
        ]

    def __str__(self) -> str:
        return f"{self.mindmap} for {self.student_id}"
