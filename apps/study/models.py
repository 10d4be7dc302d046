"""Study Hub data: what each person generated from the vault and how far they got."""

from django.conf import settings
from django.db import models

# --- Flashcards and mindmaps ---------------------------------------------------------------
# Decks of cards scheduled with FSRS (apps/study/flashcards.py) and mindmap trees drawn as
# SVG on the server (apps/study/mindmap.py).


class DeckQuerySet(models.QuerySet):
    def visible_to(self, user) -> "DeckQuerySet":
        """A deck is private to the person who made it, teachers included."""
        return self.filter(owner=user)

    def with_counts(self, now) -> "DeckQuerySet":
        """Annotate card_count, mastered_count and due_count."""
        return self.annotate(
            card_count=models.Count("cards", distinct=True),
            mastered_count=models.Count(
                "cards", filter=models.Q(cards__mastered=True), distinct=True
            ),
            due_count=models.Count("cards", filter=models.Q(cards__due_at__lte=now), distinct=True),
        )


class Deck(models.Model):
    SIZES = (10, 20, 40)
    MAX_CARDS = 200

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="decks"
    )
    title = models.CharField(max_length=200)
    category_ids = models.JSONField(default=list, blank=True)
    document_ids = models.JSONField(default=list, blank=True)
    model_label = models.CharField(max_length=200, blank=True, help_text="Backend and model.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = DeckQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.title

    def mastery(self) -> tuple[int, int]:
        """(mastered cards, all cards): a card is mastered while its last answer was "got it"."""
        total = self.cards.count()
        return self.cards.filter(mastered=True).count(), total

    def is_mastered(self) -> bool:
        mastered, total = self.mastery()
        return total > 0 and mastered == total


class CardQuerySet(models.QuerySet):
    def visible_to(self, user) -> "CardQuerySet":
        return self.filter(deck__owner=user)

    def due(self, now) -> "CardQuerySet":
        return self.filter(due_at__lte=now).order_by("due_at", "deck_id", "position", "id")


class Card(models.Model):
    """One front/back pair and its FSRS memory state (state, step, stability, difficulty)."""

    class State(models.IntegerChoices):
        # The same numbers as fsrs.State, so the row converts without a lookup table.
        LEARNING = 1
        REVIEW = 2
        RELEARNING = 3

    MAX_SIDE = 2000

    deck = models.ForeignKey(Deck, on_delete=models.CASCADE, related_name="cards")
    position = models.PositiveIntegerField(default=0)
    front = models.TextField()
    back = models.TextField()
    chunk = models.ForeignKey(
        "vault.Chunk",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The passage the card was made from.",
    )
    state = models.PositiveSmallIntegerField(choices=State.choices, default=State.LEARNING)
    step = models.PositiveSmallIntegerField(null=True, blank=True, default=0)
    stability = models.FloatField(null=True, blank=True)
    difficulty = models.FloatField(null=True, blank=True)
    due_at = models.DateTimeField(db_index=True)
    last_review_at = models.DateTimeField(null=True, blank=True)
    mastered = models.BooleanField(default=False)
    flips = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = CardQuerySet.as_manager()

    class Meta:
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return self.front[:60]


class CardReview(models.Model):
    """The outcome log: one row per "got it" / "review", with the schedule it produced."""

    class Outcome(models.TextChoices):
        GOT_IT = "got_it", "Got it"
        REVIEW = "review", "Review"

    card = models.ForeignKey(Card, on_delete=models.CASCADE, related_name="reviews")
    outcome = models.CharField(max_length=10, choices=Outcome.choices)
    reviewed_at = models.DateTimeField()
    state_after = models.PositiveSmallIntegerField(choices=Card.State.choices)
    due_after = models.DateTimeField()

    class Meta:
        ordering = ["reviewed_at", "id"]

    def __str__(self) -> str:
        return f"{self.card_id} {self.outcome}"


class MindmapQuerySet(models.QuerySet):
    def visible_to(self, user) -> "MindmapQuerySet":
        return self.filter(owner=user)


class Mindmap(models.Model):
    class Layout(models.TextChoices):
        LEFT_RIGHT = "lr", "Left to right"
        TOP_BOTTOM = "tb", "Top to bottom"
        RADIAL = "radial", "Radial"

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

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.title

    def node_ids(self) -> set[str]:
        from apps.study.mindmap import node_ids

        return node_ids(self.tree)

    def move_node(self, node_id: str, layout: str, x: float, y: float) -> None:
        """Remember where a node was dragged to, in that layout; unknown nodes are refused."""
        if node_id not in self.node_ids():
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
        if node_id not in self.node_ids():
            raise KeyError(node_id)
        folded = set(self.collapsed)
        folded ^= {node_id}
        self.collapsed = sorted(folded)
        self.save(update_fields=["collapsed", "updated_at"])


# --- end of flashcards and mindmaps ---------------------------------------------------------
