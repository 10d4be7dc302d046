"""Flashcard decks, their cards with each card's FSRS memory state, and the log of answers."""

from django.conf import settings
from django.db import models, transaction
from django.db.models.functions import Coalesce

from apps.study.errors import DeckError, DeckFull
from apps.study.generation_job import Generated, GenerationQuerySet, one_per_request
from apps.study.ownership import ReadableQuerySet
from apps.study.quota import make_room, size_of

MAX_SIDE = 2000


def clean_side(value: object) -> str:
    """One side of a card as stored: trimmed and cut to MAX_SIDE; anything but text is empty."""
    return value.strip()[:MAX_SIDE] if isinstance(value, str) else ""


class DeckQuerySet(GenerationQuerySet):
    def with_counts(self, now) -> "DeckQuerySet":
        """Annotate card_count, mastered_count and due_count."""
        return self.annotate(
            card_count=models.Count("cards", distinct=True),
            mastered_count=models.Count(
                "cards", filter=models.Q(cards__mastered=True), distinct=True
            ),
            due_count=models.Count("cards", filter=models.Q(cards__due_at__lte=now), distinct=True),
        )


class Deck(Generated):
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
        constraints = [one_per_request("deck")]

    def __str__(self) -> str:
        return self.title

    def mastery(self, user=None) -> tuple[int, int]:
        """(mastered cards, all cards) for `user` (the owner unless said): a card is mastered
        while their last answer to it was "got it"."""
        cards = self.cards.studied_by(user or self.owner)
        return cards.filter(learner_mastered=True).count(), cards.count()

    def is_mastered(self, user=None) -> bool:
        mastered, total = self.mastery(user)
        return total > 0 and mastered == total

    def rename(self, title: str) -> None:
        title = title.strip()[:200]
        if not title:
            raise DeckError("Give the deck a title.")
        self.title = title
        self.save(update_fields=["title", "updated_at"])

    def add_card(self, front: str, back: str, *, now) -> "Card":
        """A new card at the end of the deck, due at once; a full deck takes no more."""
        front, back = clean_side(front), clean_side(back)
        if not front or not back:
            raise DeckError("A card needs a front and a back.")
        if self.cards.count() >= self.MAX_CARDS:
            raise DeckFull(f"A deck holds at most {self.MAX_CARDS} cards.")
        with transaction.atomic():
            make_room(self.owner, size_of(front, back), self.title)
            last = self.cards.order_by("-position").values_list("position", flat=True).first()
            return Card.objects.create(
                deck=self,
                position=(last + 1) if last is not None else 0,
                front=front,
                back=back,
                due_at=now,
            )


class CardQuerySet(ReadableQuerySet):
    owner_lookup = "deck__owner"
    item_lookup = "deck"

    def due(self, now) -> "CardQuerySet":
        return self.filter(due_at__lte=now).order_by("due_at", "deck_id", "position", "id")

    def studied_by(self, user) -> "CardQuerySet":
        """Each card with `user`'s memory of it as `learner_due_at` and `learner_mastered`:
        the card's own for its deck's owner, else the student's schedule (a card they never
        answered is due at once and not mastered)."""
        schedule = CardSchedule.objects.filter(card=models.OuterRef("pk"), student=user)
        own = models.Q(deck__owner=user)
        return self.annotate(
            learner_due_at=models.Case(
                models.When(own, then=models.F("due_at")),
                default=Coalesce(
                    models.Subquery(schedule.values("due_at")[:1]), models.F("created_at")
                ),
            ),
            learner_mastered=models.Case(
                models.When(own, then=models.F("mastered")),
                default=Coalesce(
                    models.Subquery(schedule.values("mastered")[:1]), models.Value(False)
                ),
                output_field=models.BooleanField(),
            ),
        )

    def due_to_learner(self, now) -> "CardQuerySet":
        """Of cards annotated by `studied_by`, those due now, the most overdue first."""
        return self.filter(learner_due_at__lte=now).order_by(
            "learner_due_at", "deck_id", "position", "id"
        )


class Memory(models.Model):
    """FSRS memory of a card (state, step, stability, difficulty, due time) and its answers."""

    class State(models.IntegerChoices):
        # The same numbers as fsrs.State, so the row converts without a lookup table.
        LEARNING = 1
        REVIEW = 2
        RELEARNING = 3

    state = models.PositiveSmallIntegerField(choices=State.choices, default=State.LEARNING)
    step = models.PositiveSmallIntegerField(null=True, blank=True, default=0)
    stability = models.FloatField(null=True, blank=True)
    difficulty = models.FloatField(null=True, blank=True)
    due_at = models.DateTimeField(db_index=True)
    last_review_at = models.DateTimeField(null=True, blank=True)
    mastered = models.BooleanField(default=False)
    flips = models.PositiveIntegerField(default=0)

    class Meta:
        abstract = True


class Card(Memory):
    """One front/back pair and its owner's FSRS memory of it; students who study it from a
    deck handed out to the class keep theirs in a CardSchedule each."""

    MAX_SIDE = MAX_SIDE

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
    extractive = models.BooleanField(
        default=False, help_text="Cut from its chunk by the extractive generator, not a model."
    )
    source_chunk_id = models.PositiveBigIntegerField(
        null=True,
        blank=True,
        help_text="The passage's id, kept when re-ingestion retires it (and `chunk` empties).",
    )
    pictures = models.JSONField(
        default=dict,
        blank=True,
        help_text='{"front": [...], "back": [...]}: pictures (data URIs) from an imported deck.',
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = CardQuerySet.as_manager()

    class Meta:
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return self.front[:60]

    def edit(self, front: str | None = None, back: str | None = None) -> None:
        """Change the sides given; neither may end up empty."""
        before = size_of(self.front, self.back)
        sides = {"front": front, "back": back}
        for side, value in sides.items():
            if value is not None:
                if not clean_side(value):
                    raise DeckError("A card needs a front and a back.")
                setattr(self, side, clean_side(value))
        with transaction.atomic():
            make_room(self.deck.owner, size_of(self.front, self.back) - before, self.deck.title)
            self.save(update_fields=["front", "back"])


class CardSchedule(Memory):
    """A student's memory of one card of a deck handed out to the class: one card, as many
    schedules as students study it."""

    card = models.ForeignKey(Card, on_delete=models.CASCADE, related_name="schedules")
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="card_schedules"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["card", "student"], name="one_schedule_per_student")
        ]

    def __str__(self) -> str:
        return f"{self.card_id} for {self.student_id}"


class CardReview(models.Model):
    """The outcome log: one row per "got it" / "review", with the schedule it produced."""

    class Outcome(models.TextChoices):
        GOT_IT = "got_it", "Got it"
        REVIEW = "review", "Review"

    card = models.ForeignKey(Card, on_delete=models.CASCADE, related_name="reviews")
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="card_reviews",
        help_text="The student who answered; empty for the deck's owner.",
    )
    outcome = models.CharField(max_length=10, choices=Outcome.choices)
    reviewed_at = models.DateTimeField()
    state_after = models.PositiveSmallIntegerField(choices=Card.State.choices)
    due_after = models.DateTimeField()

    class Meta:
        ordering = ["reviewed_at", "id"]

    def __str__(self) -> str:
        return f"{self.card_id} {self.outcome}"
