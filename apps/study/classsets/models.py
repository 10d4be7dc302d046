"""Class sets: a teacher hands one quiz, deck, mindmap or workshop to the whole class.

The item stays the teacher's (its content changes only through them); each student's work on
it sits in rows of their own (attempts, card schedules, lesson completions, arrangements).
Taking a set back deletes the ClassSet: students no longer reach the item, and their work
stays with it, so handing it out again brings the results back.
"""

from functools import reduce
from operator import or_

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.utils import timezone

from apps.progress.models import LocalZone
from apps.study import kinds
from apps.study.classsets.policy import Grading, QuizPolicy, Reveal
from apps.study.errors import InvalidInput, StudyError
from apps.study.generated import READY
from apps.study.ownership import is_student


class NotATeacher(StudyError):
    status = 403


class AlreadyHandedOut(StudyError):
    status = 409


ONLY_TEACHERS = "Only teachers hand material out to the class."
MAX_ATTEMPTS = 100  # a number of attempts allowed; more is "unlimited" (None)


def check_quiz_policy(attempts: int | None, grading: str, reveal: str) -> None:
    if attempts is not None and not 1 <= attempts <= MAX_ATTEMPTS:
        raise InvalidInput(f"Allow 1 to {MAX_ATTEMPTS} attempts, or unlimited.")
    if grading not in Grading.values:
        raise InvalidInput(f"Grade by one of: {', '.join(Grading.values)}.")
    if reveal not in Reveal.values:
        raise InvalidInput(f"Show the answers at one of: {', '.join(Reveal.values)}.")


class ClassSetQuerySet(models.QuerySet):
    def of_teacher(self, user):
        return self.filter(teacher=user) if user.is_authenticated else self.none()

    def check_teacher(self, user) -> None:
        """Refuse anyone but a teacher before anything is made "for the class"."""
        if not (user.is_authenticated and user.is_teacher):
            raise NotATeacher(ONLY_TEACHERS)

    def hand_out(self, teacher, item, *, note: str = "", due=None, **policy) -> "ClassSet":
        """Hand `item` (the teacher's own quiz, deck, mindmap or workshop) to the class; a
        quiz with its `policy` (attempts, grading, reveal; the fields' defaults otherwise)."""
        self.check_teacher(teacher)
        policy = {"attempts": 1, "grading": Grading.FIRST, "reveal": Reveal.AFTER_DUE, **policy}
        check_quiz_policy(**policy)
        kind = ClassSet.kind_of(item)
        if item.owner_id != teacher.pk:
            raise NotATeacher("Only the teacher who made it can hand it out.")
        note = note.strip()[:500]
        try:
            with transaction.atomic():
                return self.create(
                    teacher=teacher, kind=kind, note=note, due=due, **policy, **{kind: item}
                )
        except IntegrityError:  # one set per item (two hand-outs at once: one wins)
            raise AlreadyHandedOut(f"This {kind} is handed out already.") from None

    def readable_by(self, user):
        """A teacher's own sets; for a student, every set handed out to the class whose item
        is ready (one still being made, or that failed, is the teacher's alone)."""
        if is_student(user):
            return self.ready()
        return self.of_teacher(user)

    def ready(self):
        ready = (models.Q(**{f"{kind.name}__status": READY}) for kind in kinds.handed_out())
        return self.filter(reduce(or_, ready))


class ClassSet(models.Model):
    class Kind(models.TextChoices):
        QUIZ = "quiz"
        DECK = "deck"
        MINDMAP = "mindmap"
        WORKSHOP = "workshop"

    teacher = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="class_sets"
    )
    kind = models.CharField(max_length=10, choices=Kind.choices)
    quiz = models.ForeignKey(
        "study.Quiz", null=True, blank=True, on_delete=models.CASCADE, related_name="class_sets"
    )
    deck = models.ForeignKey(
        "study.Deck", null=True, blank=True, on_delete=models.CASCADE, related_name="class_sets"
    )
    mindmap = models.ForeignKey(
        "study.Mindmap", null=True, blank=True, on_delete=models.CASCADE, related_name="class_sets"
    )
    workshop = models.ForeignKey(
        "study.Workshop", null=True, blank=True, on_delete=models.CASCADE, related_name="class_sets"
    )
    note = models.CharField(max_length=500, blank=True)
    due = models.DateField(null=True, blank=True)
    # A quiz's policy for the class (apps/study/quizzes/policy.py).
    attempts = models.PositiveSmallIntegerField(
        null=True, blank=True, default=1, help_text="Attempts allowed; empty for unlimited."
    )
    grading = models.CharField(max_length=10, choices=Grading.choices, default=Grading.FIRST)
    reveal = models.CharField(max_length=14, choices=Reveal.choices, default=Reveal.AFTER_DUE)
    released_at = models.DateTimeField(
        null=True, blank=True, help_text="When the teacher released the answers to the class."
    )
    handed_out_at = models.DateTimeField(auto_now_add=True)

    objects = ClassSetQuerySet.as_manager()

    class Meta:
        ordering = ["-handed_out_at", "-pk"]
        constraints = [
            # One set per item: the visibility join never doubles a row.
            *(
                models.UniqueConstraint(fields=[kind], name=f"one_class_set_per_{kind}")
                for kind in ("quiz", "deck", "mindmap", "workshop")
            ),
            models.CheckConstraint(
                name="class_set_names_its_one_item",
                condition=(
                    models.Q(
                        kind="quiz", quiz__isnull=False, deck=None, mindmap=None, workshop=None
                    )
                    | models.Q(
                        kind="deck", deck__isnull=False, quiz=None, mindmap=None, workshop=None
                    )
                    | models.Q(
                        kind="mindmap", mindmap__isnull=False, quiz=None, deck=None, workshop=None
                    )
                    | models.Q(
                        kind="workshop", workshop__isnull=False, quiz=None, deck=None, mindmap=None
                    )
                ),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind}: {self.item}"

    @classmethod
    def kind_of(cls, item) -> str:
        kind = kinds.of(item)
        if not kind.handed_out:
            raise TypeError(f"{item!r} cannot be handed out")
        return kind.name

    @property
    def item(self):
        return getattr(self, self.kind)

    def study_url(self) -> str:
        """The page a student studies the item on."""
        return kinds.get(self.kind).url(self.item)

    def quiz_policy(self) -> QuizPolicy:
        return QuizPolicy(
            attempts=self.attempts,
            grading=self.grading,
            reveal=self.reveal,
            due=self.due,
            released=self.released_at is not None,
            for_class=True,
            zone=LocalZone.objects.zone_for(self.teacher),
        )

    def release(self) -> None:
        """Show the class the correct answers and explanations of a quiz, whatever its policy."""
        if self.kind != self.Kind.QUIZ:
            raise InvalidInput("Only a quiz has answers to release.")
        if self.released_at is None:
            self.released_at = timezone.now()
            self.save(update_fields=["released_at"])
