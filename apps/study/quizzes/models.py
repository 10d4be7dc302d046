"""Quizzes with their questions and attempts; generated questions keep the chunks they came from."""

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone

from apps.progress import tracking
from apps.study.classsets.models import ClassSet
from apps.study.classsets.policy import Marks, QuizPolicy, Reveal
from apps.study.errors import InvalidAnswers, InvalidInput, QuestionRemoved
from apps.study.generation_job import Generated, GenerationQuerySet, one_per_request
from apps.study.quizzes.bank import MAX_OPTIONS
from apps.study.quizzes.seat import Seat
from apps.study.quizzes.typos import is_typo_fix
from apps.study.quota import make_room, size_of
from apps.study.sources import sources_for_each
from apps.vault.reading.links import source_url


class Difficulty(models.TextChoices):
    BEGINNER = "beginner"
    INTERMEDIATE = "intermediate"
    ADVANCED = "advanced"


class Quiz(Generated):
    SIZES = (5, 10, 20)
    MOST_QUESTIONS = 1000  # an imported question bank's quiz, at most

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

    def submit(self, answers: list, seat: Seat | None = None) -> tuple["Attempt", list]:
        """Grade `answers` as the open attempt of the seat's person (the owner's without a
        seat) or a new one, save it with the version of each question it answered and, when
        their marks show now, record it for their progress; (the attempt, badges just earned).
        Answers that do not fit save nothing."""
        self.require_ready()
        seat = seat or self.seat_for(self.owner)
        answers = self.check_answers(answers)
        with transaction.atomic():
            attempt = self.start_attempt(seat)
            attempt.answers = answers
            attempt.asked = self.version()
            attempt.correct, attempt.total = self.grade(answers)
            attempt.submitted_at = timezone.now()
            attempt.recorded = seat.marks_shown
            attempt.save()
        return attempt, attempt.record(seat.class_id) if attempt.recorded else []

    def record_marks(self, seat: Seat) -> list:
        """Record for the seat's person's progress the attempts they handed in while their
        marks were hidden, once the marks show: whoever first sees them (the review, the quiz
        in the API, the class sets). Progress would have told the marks (a badge for a perfect
        score, the count of perfect quizzes). The badges earned."""
        if seat.policy.marks == Marks.AFTER_ATTEMPT or not seat.marks_shown:
            return []  # recorded when handed in, or not yet
        earned = []
        waiting = self.handed_in_by(seat.person).filter(recorded=False).order_by("submitted_at")
        for attempt in waiting:
            # Once, whichever request sees them first.
            if Attempt.objects.filter(pk=attempt.pk, recorded=False).update(recorded=True):
                attempt.quiz, attempt.user = self, seat.person
                earned += attempt.record(seat.class_id)
        return earned

    def version(self) -> list[list[int]]:
        """[question id, its version] per question in order: an attempt made on another list
        answered an older version of the quiz."""
        return [[question.pk, question.version] for question in self.questions.all()]

    def attempts_of(self, user):
        return self.attempts.filter(user=user)

    def handed_in_by(self, user):
        return self.attempts_of(user).filter(submitted_at__isnull=False)

    def retake(self, seat: Seat) -> "Attempt":
        """Drop the unfinished attempt, if any, and start afresh (keeping it when the policy
        allows no new one)."""
        with transaction.atomic():
            self.attempts_of(seat.person).filter(submitted_at__isnull=True).delete()
            return self.start_attempt(seat)

    def open_attempt(self, by=None) -> "Attempt | None":
        """The unfinished attempt to resume after a refresh, if there is one."""
        unfinished = self.attempts_of(by or self.owner).filter(submitted_at__isnull=True)
        return unfinished.order_by("-pk").first()

    def start_attempt(self, seat: Seat) -> "Attempt":
        """The open attempt of the seat's person, or a new one if their policy allows (else
        AttemptRefused: past the due date, or no attempt left)."""
        with transaction.atomic():  # an IMMEDIATE transaction: two tabs cannot both start
            attempt = self.open_attempt(seat.person)
            if attempt is not None:
                seat.policy.check_finish(attempt.started_at, seat.now)
                return attempt
            # Counted again inside the transaction: another tab may have handed one in.
            seat.policy.check_start(self.handed_in_by(seat.person).count(), seat.now)
            return self.attempts.create(user=seat.person, answers=[None] * self.questions.count())

    def seat_for(self, person, class_set: ClassSet | None = None) -> Seat:
        """`person`'s seat at this quiz (quizzes/seat.py): the owner's own rules, or those of
        the class set it is handed out in (`class_set`, when the caller has it already)."""
        if person.pk == self.owner_id:
            return Seat(self, person, QuizPolicy())
        class_set = class_set or ClassSet.objects.for_item(self).handed_to(person).first()
        if class_set is None:  # taken back: nothing more to answer or see
            taken_back = QuizPolicy(
                attempts=0, reveal=Reveal.NEVER, marks=Marks.NEVER, for_class=True
            )
            return Seat(self, person, taken_back)
        return Seat(self, person, class_set.quiz_policy(), class_set)

    def remove_question(self, question: "Question") -> None:
        """Take a question out; the ones after it move up, and so do the answers of the
        unfinished attempts. Submitted attempts keep what they answered (an older version).
        The last question stays."""
        if self.questions.count() <= 1:
            raise InvalidInput("A quiz keeps at least one question.")
        with transaction.atomic():
            position = question.position
            question.delete()
            for later in self.questions.filter(position__gt=position).order_by("position"):
                later.position -= 1
                later.save(update_fields=["position"])
            for attempt in self.attempts.filter(submitted_at__isnull=True):
                answers = list(attempt.answers)
                del answers[position : position + 1]
                attempt.answers = answers
                attempt.current = max(0, min(attempt.current, len(answers) - 1))
                attempt.save(update_fields=["answers", "current"])


class Question(models.Model):
    class Kind(models.TextChoices):
        MCQ = "mcq", "Multiple choice"
        TRUE_FALSE = "true_false", "True or false"

    MAX_OPTIONS = MAX_OPTIONS

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
    version = models.PositiveIntegerField(
        default=1, help_text="Goes up when an edit changes what is asked (not for a typo fix)."
    )
    pictures = models.JSONField(
        default=list,
        blank=True,
        help_text="Pictures shown with the question (data URIs), from an imported file.",
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

    def edit(
        self,
        *,
        text: str | None = None,
        options: list[str] | None = None,
        correct_index: int | None = None,
        explanation: str | None = None,
    ) -> bool:
        """Change what is given; True when it was a typo fix (see `is_typo_fix`), which keeps
        the version and so the results; any other change to the question, its options or
        its answer is a new version. The explanation never changes the version."""
        text = self.text if text is None else text.strip()
        options = self.options if options is None else [o.strip() for o in options]
        correct_index = self.correct_index if correct_index is None else correct_index
        if not text or not all(options) or len(options) != len(self.options):
            raise InvalidInput(
                f"A question needs its text and {len(self.options)} options, none empty."
            )
        if not 0 <= correct_index < len(options):
            raise InvalidInput(
                f"The correct answer is one of the options, 0 to {len(options) - 1}."
            )
        typo = is_typo_fix(self, text, options, correct_index)
        if not typo:
            self.version += 1
        before = size_of(self.text, self.options, self.explanation)
        self.text, self.options, self.correct_index = text, options, correct_index
        if explanation is not None:
            self.explanation = explanation.strip()
        fields = ["text", "options", "correct_index", "explanation", "version"]
        grown = size_of(self.text, self.options, self.explanation) - before
        with transaction.atomic():
            make_room(self.quiz.owner, grown, self.quiz.title)
            # An update that finds no row: the question was removed since it was read.
            updated = Question.objects.filter(pk=self.pk).update(
                **{f: getattr(self, f) for f in fields}
            )
        if not updated:
            raise QuestionRemoved("This question was removed meanwhile: reload the quiz.")
        return typo

    def accepts(self, choice: object) -> bool:
        """An answer is None (not answered) or the index of one of the options."""
        if choice is None:
            return True
        is_index = isinstance(choice, int) and not isinstance(choice, bool)
        return is_index and 0 <= choice < len(self.options)


class Attempt(models.Model):
    quiz = models.ForeignKey(Quiz, on_delete=models.CASCADE, related_name="attempts")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="quiz_attempts",
        help_text="Who answered: the quiz's owner, or a student on a quiz handed to the class.",
    )
    asked = models.JSONField(
        default=list,
        blank=True,
        help_text="[question id, version] per answer, as the quiz was when it was submitted.",
    )
    answers = models.JSONField(default=list, help_text="Chosen option index per question.")
    current = models.PositiveSmallIntegerField(default=0, help_text="Question shown (0-based).")
    correct = models.PositiveSmallIntegerField(null=True, blank=True)
    total = models.PositiveSmallIntegerField(null=True, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    recorded = models.BooleanField(
        default=False,
        help_text="In its person's progress: when handed in, or once its marks showed.",
    )

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

    @property
    def on_old_version(self) -> bool:
        """Submitted before a question it answered was changed or removed (or one added)."""
        return self.is_submitted and bool(self.asked) and self.asked != self.quiz.version()

    def results(self) -> list[tuple["Question", int | None, bool]]:
        """(question, chosen index, right?) for the review. A submitted attempt pairs each
        answer with the question it answered (a question removed since is left out)."""
        answers = list(self.answers)
        questions = list(self.quiz.questions.all())
        if self.asked:
            by_id = {question.pk: question for question in questions}
            pairs = [
                (by_id[pk], answers[i] if i < len(answers) else None)
                for i, (pk, _version) in enumerate(self.asked)
                if pk in by_id
            ]
        else:
            pairs = [(q, answers[i] if i < len(answers) else None) for i, q in enumerate(questions)]
        return [(question, chosen, chosen == question.correct_index) for question, chosen in pairs]

    def answered(self) -> dict[tuple[int, int], bool]:
        """{(question id, version): right?} of a submitted attempt, for the class results."""
        answers = list(self.answers)
        correct = dict(self.quiz.questions.values_list("pk", "correct_index"))
        rows = {}
        for i, (pk, version) in enumerate(self.asked):
            if pk in correct:  # not removed since
                chosen = answers[i] if i < len(answers) else None
                rows[(pk, version)] = chosen == correct[pk]
        return rows

    def record(self, class_id: int | None) -> list:
        """Record this handed-in attempt for its person's progress (apps/progress), as made
        when it was handed in, in the class it was handed out to (`class_id`; None for a quiz
        of one's own, whose misses stay private); the badges earned."""
        return tracking.record_quiz(
            self.user,
            score_percent=self.percent or 0,
            difficulty=self.quiz.difficulty,
            class_id=class_id,
            questions_wrong=self.missed() if class_id else (),
            at=self.submitted_at,
        )

    def missed(self) -> list[dict]:
        """The questions answered wrong, with a link to their first source, for the class
        overview of what is missed most."""
        wrong = [question for question, _chosen, right in self.results() if not right]
        sources = sources_for_each(self.user, [question.chunk_ids for question in wrong])
        rows = []
        for question, chunks in zip(wrong, sources, strict=True):
            missed = {"question": question.text}
            if chunks:
                page = f", p. {chunks[0].page}" if chunks[0].page else ""
                missed["source_label"] = f"{chunks[0].document.filename}{page}"
                missed["source_url"] = source_url(chunks[0])
            rows.append(missed)
        return rows
