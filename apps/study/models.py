"""Study Hub: quizzes with their attempts, and workshops with their lessons.

Generated content is stored as it arrived (after validation), with the ids of the chunks it
was built from, so everything can be resumed, reviewed and traced to its source later.
(Flashcard decks and mindmaps live in their own modules of this app.)
"""

from django.conf import settings
from django.db import models
from django.utils import timezone

from apps.vault.models import Chunk, Document


class OwnedQuerySet(models.QuerySet):
    def visible_to(self, user) -> "OwnedQuerySet":
        """Study material is personal: only its owner ever reaches it."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(owner=user)


def sources_for(user, chunk_ids: list[int]) -> list[Chunk]:
    """The chunks behind a generated item that `user` may still see, in the given order."""
    visible = Document.objects.visible_to(user)
    chunks = Chunk.objects.filter(pk__in=chunk_ids, document__in=visible).select_related("document")
    by_id = {chunk.pk: chunk for chunk in chunks}
    return [by_id[pk] for pk in chunk_ids if pk in by_id]


class Difficulty(models.TextChoices):
    BEGINNER = "beginner"
    INTERMEDIATE = "intermediate"
    ADVANCED = "advanced"


class Quiz(models.Model):
    SIZES = (5, 10, 20)

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="quizzes"
    )
    title = models.CharField(max_length=200)
    difficulty = models.CharField(max_length=12, choices=Difficulty.choices)
    types = models.JSONField(default=list, help_text='e.g. ["mcq", "true_false"]')
    requested = models.PositiveSmallIntegerField(help_text="Questions asked of the model.")
    scope = models.JSONField(default=dict, help_text="{category_ids: [...], document_ids: [...]}")
    chunk_ids = models.JSONField(default=list, help_text="Every chunk the prompt showed.")
    workshop = models.ForeignKey(
        "Workshop",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="recap_quizzes",
        help_text="Set for the recap quiz of a workshop.",
    )
    backend = models.CharField(max_length=20, blank=True)
    model = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name_plural = "quizzes"

    def __str__(self) -> str:
        return self.title

    def grade(self, answers: list[int | None]) -> tuple[int, int]:
        """(correct, total): an answer counts when it is the question's correct_index."""
        questions = list(self.questions.all())
        correct = sum(
            1
            for question, answer in zip(questions, answers, strict=False)
            if answer == question.correct_index
        )
        return correct, len(questions)

    def open_attempt(self) -> "Attempt | None":
        """The unfinished attempt to resume after a refresh, if there is one."""
        return self.attempts.filter(submitted_at__isnull=True).order_by("-pk").first()

    def start_attempt(self) -> "Attempt":
        return self.open_attempt() or self.attempts.create(answers=[None] * self.questions.count())


class Question(models.Model):
    class Kind(models.TextChoices):
        MCQ = "mcq", "Multiple choice"
        TRUE_FALSE = "true_false", "True or false"

    quiz = models.ForeignKey(Quiz, on_delete=models.CASCADE, related_name="questions")
    position = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=12, choices=Kind.choices)
    text = models.TextField()
    options = models.JSONField()
    correct_index = models.PositiveSmallIntegerField()
    explanation = models.TextField(blank=True)
    chunk_ids = models.JSONField(default=list)

    class Meta:
        ordering = ["quiz_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["quiz", "position"], name="unique_question_position")
        ]

    def __str__(self) -> str:
        return self.text[:80]

    @property
    def correct_option(self) -> str:
        return self.options[self.correct_index]


class Attempt(models.Model):
    quiz = models.ForeignKey(Quiz, on_delete=models.CASCADE, related_name="attempts")
    answers = models.JSONField(default=list, help_text="Chosen option index per question.")
    current = models.PositiveSmallIntegerField(default=0, help_text="Question shown (0-based).")
    correct = models.PositiveSmallIntegerField(null=True, blank=True)
    total = models.PositiveSmallIntegerField(null=True, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    submitted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.quiz} attempt {self.pk}"

    @property
    def percent(self) -> int | None:
        if self.total is None:
            return None
        return round(100 * self.correct / self.total) if self.total else 0

    @property
    def is_submitted(self) -> bool:
        return self.submitted_at is not None

    def answer(self, position: int, choice: int | None) -> None:
        """Remember one answer while playing, so a refresh loses nothing."""
        questions = list(self.quiz.questions.all())
        if not 0 <= position < len(questions):
            raise ValueError("There is no such question in this quiz.")
        if choice is not None and not 0 <= choice < len(questions[position].options):
            raise ValueError("That option does not exist for this question.")
        answers = (list(self.answers) + [None] * len(questions))[: len(questions)]
        answers[position] = choice
        self.answers = answers
        self.current = position
        self.save(update_fields=["answers", "current"])

    def submit(self, answers: list[int | None] | None = None) -> None:
        if answers is not None:
            self.answers = answers
        self.correct, self.total = self.quiz.grade(self.answers)
        self.submitted_at = timezone.now()
        self.save()

    def results(self) -> list[tuple["Question", int | None, bool]]:
        """(question, chosen index, right?) for the review."""
        answers = list(self.answers)
        rows = []
        for i, question in enumerate(self.quiz.questions.all()):
            chosen = answers[i] if i < len(answers) else None
            rows.append((question, chosen, chosen == question.correct_index))
        return rows


class Workshop(models.Model):
    SIZES = (5, 10)

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="workshops"
    )
    title = models.CharField(max_length=200)
    summary = models.TextField(blank=True)
    requested = models.PositiveSmallIntegerField(help_text="Lessons asked of the model.")
    scope = models.JSONField(default=dict)
    chunk_ids = models.JSONField(default=list, help_text="The chunks the outline was built from.")
    backend = models.CharField(max_length=20, blank=True)
    model = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return self.title

    @property
    def progress(self) -> tuple[int, int]:
        lessons = list(self.lessons.all())
        return sum(1 for lesson in lessons if lesson.completed_at), len(lessons)

    def complete_lesson(self, lesson: "Lesson") -> bool:
        """Mark one lesson done; True when that completed the whole workshop just now."""
        if lesson.completed_at is None:
            lesson.completed_at = timezone.now()
            lesson.save(update_fields=["completed_at"])
        done, total = self.progress
        if done == total and self.completed_at is None:
            self.completed_at = timezone.now()
            self.save(update_fields=["completed_at"])
            return True
        return False

    @property
    def recap_quiz(self) -> Quiz | None:
        return self.recap_quizzes.order_by("-pk").first()


class Lesson(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        GENERATING = "generating"
        READY = "ready"
        FAILED = "failed"

    workshop = models.ForeignKey(Workshop, on_delete=models.CASCADE, related_name="lessons")
    number = models.PositiveSmallIntegerField(help_text="From 1.")
    title = models.CharField(max_length=200)
    summary = models.TextField(blank=True)
    content = models.TextField(blank=True, help_text="Markdown, written when first opened.")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    error = models.TextField(blank=True)
    chunk_ids = models.JSONField(default=list)
    generated_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["workshop_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["workshop", "number"], name="unique_lesson_number")
        ]

    def __str__(self) -> str:
        return f"{self.number}. {self.title}"


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
