"""Quizzes with their questions and attempts; generated questions keep the chunks they came from."""

from django.conf import settings
from django.db import models, transaction
from django.urls import reverse
from django.utils import timezone

from apps.progress import tracking
from apps.study.errors import InvalidAnswers
from apps.study.generated import Generated, GenerationQuerySet, one_per_request
from apps.study.sources import sources_for


class Difficulty(models.TextChoices):
    BEGINNER = "beginner"
    INTERMEDIATE = "intermediate"
    ADVANCED = "advanced"


class Quiz(Generated):
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

    objects = GenerationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name_plural = "quizzes"
        constraints = [one_per_request("quiz")]

    def __str__(self) -> str:
        return self.title

    def check_answers(self, answers: list) -> list[int | None]:
        """The one check of quiz answers: one per question, each unanswered (None) or one of
        that question's options. Anything else is refused with InvalidAnswers."""
        questions = list(self.questions.all())
        if len(answers) != len(questions):
            raise InvalidAnswers(f"Send one answer per question: {len(questions)} answers.")
        for number, (question, answer) in enumerate(zip(questions, answers, strict=True), 1):
            if not question.accepts(answer):
                raise InvalidAnswers(f"Answer {answer} is not an option of question {number}.")
        return list(answers)

    def grade(self, answers: list[int | None]) -> tuple[int, int]:
        """(correct, total): an answer counts when it is the question's correct_index."""
        questions = list(self.questions.all())
        correct = sum(
            1
            for question, answer in zip(questions, answers, strict=False)
            if answer == question.correct_index
        )
        return correct, len(questions)

    def submit(self, answers: list) -> tuple["Attempt", list]:
        """Grade `answers` as the open attempt (or a new one), save it and record it for
        progress; (the attempt, badges just earned). Answers that do not fit save nothing."""
        self.require_ready()
        answers = self.check_answers(answers)
        with transaction.atomic():
            attempt = self.start_attempt()
            attempt.answers = answers
            attempt.correct, attempt.total = self.grade(answers)
            attempt.submitted_at = timezone.now()
            attempt.save()
        return attempt, tracking.record_quiz(
            self.owner,
            score_percent=attempt.percent or 0,
            difficulty=self.difficulty,
            questions_wrong=attempt.missed(),
        )

    def retake(self) -> "Attempt":
        """Drop the unfinished attempt, if any, and start afresh."""
        self.attempts.filter(submitted_at__isnull=True).delete()
        return self.start_attempt()

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
    extractive = models.BooleanField(
        default=False, help_text="Cut from its chunk by the extractive generator, not a model."
    )

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

    def accepts(self, choice: object) -> bool:
        """An answer is None (not answered) or the index of one of the options."""
        if choice is None:
            return True
        is_index = isinstance(choice, int) and not isinstance(choice, bool)
        return is_index and 0 <= choice < len(self.options)


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
            raise InvalidAnswers("There is no such question in this quiz.")
        if not questions[position].accepts(choice):
            raise InvalidAnswers("That option does not exist for this question.")
        answers = (list(self.answers) + [None] * len(questions))[: len(questions)]
        answers[position] = choice
        self.answers = answers
        self.current = position
        self.save(update_fields=["answers", "current"])

    def results(self) -> list[tuple["Question", int | None, bool]]:
        """(question, chosen index, right?) for the review."""
        answers = list(self.answers)
        rows = []
        for i, question in enumerate(self.quiz.questions.all()):
            chosen = answers[i] if i < len(answers) else None
            rows.append((question, chosen, chosen == question.correct_index))
        return rows

    def missed(self) -> list[dict]:
        """The questions answered wrong, with a link to their first source, for the class
        overview of what is missed most."""
        wrong = []
        for question, _chosen, right in self.results():
            if right:
                continue
            missed = {"question": question.text}
            chunk = next(iter(sources_for(self.quiz.owner, question.chunk_ids)), None)
            if chunk is not None:
                page = f", p. {chunk.page}" if chunk.page else ""
                missed["source_label"] = f"{chunk.document.filename}{page}"
                missed["source_url"] = reverse("study:source-detail", args=[chunk.pk])
            wrong.append(missed)
        return wrong
