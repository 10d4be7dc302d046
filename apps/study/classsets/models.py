"""Class sets: a teacher hands one quiz, deck, mindmap or workshop (each kind declared
`handed_out` in apps/study/kinds.py) to one of the classes they teach (apps/classes).

A set names its item by kind and id, so a new kind needs no column here: one set per item and
class, and deleting the item deletes its sets. The class decides who reaches the set: its
students study it, its teachers see the results (apps/classes/reach.py). The item stays the
teacher's (its content changes only through them); each student's work on it sits in rows of
their own (attempts, card schedules, lesson completions, arrangements). Taking a set back
deletes the ClassSet: students no longer reach the item, and their work stays with it, so
handing it out again brings the results back.
"""

from collections import defaultdict
from functools import cached_property, partial, reduce
from operator import or_

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver
from django.utils import timezone

from apps.classes.models import SchoolClass
from apps.progress.models import LocalZone
from apps.study import kinds, ownership
from apps.study.classsets.policy import (
    MOMENTS,
    Grading,
    Marks,
    QuizPolicy,
    Reveal,
    default_marks,
)
from apps.study.errors import InvalidInput, StudyError
from apps.study.ownership import READY, is_student


class NotATeacher(StudyError):
    status = 403


class AlreadyHandedOut(StudyError):
    status = 409


ONLY_TEACHERS = "Only teachers hand material out to the class."
MAX_ATTEMPTS = 100  # a number of attempts allowed; more is "unlimited" (None)


def check_quiz_policy(attempts: int | None, grading: str, reveal: str, marks: str) -> None:
    if attempts is not None and not 1 <= attempts <= MAX_ATTEMPTS:
        raise InvalidInput(f"Allow 1 to {MAX_ATTEMPTS} attempts, or unlimited.")
    if grading not in Grading.values:
        raise InvalidInput(f"Grade by one of: {', '.join(Grading.values)}.")
    if reveal not in Reveal.values:
        raise InvalidInput(f"Show the answers at one of: {', '.join(Reveal.values)}.")
    if marks not in Marks.values:
        raise InvalidInput(f"Show the marks at one of: {', '.join(Marks.values)}.")


class ClassSetQuerySet(models.QuerySet):
    def taught_by(self, user):
        """The sets of the classes `user` teaches (the admin: every class)."""
        return self.filter(school_class__in=SchoolClass.objects.taught_by(user))

    def check_teacher(self, user) -> None:
        """Refuse anyone but a teacher before anything is made "for the class"."""
        if not (user.is_authenticated and user.is_teacher):
            raise NotATeacher(ONLY_TEACHERS)

    def hand_out(
        self, teacher, item, school_class: SchoolClass, *, note: str = "", due=None, **policy
    ) -> "ClassSet":
        """Hand `item` (the teacher's own quiz, deck, mindmap or workshop) to `school_class`,
        one they teach; a quiz with its `policy` (attempts, grading, reveal, marks; the fields'
        defaults otherwise, the marks' following the attempts: `default_marks`)."""
        self.check_teacher(teacher)
        policy = {"attempts": 1, "grading": Grading.FIRST, "reveal": Reveal.AFTER_DUE, **policy}
        policy["marks"] = policy.get("marks") or default_marks(policy["attempts"], policy["reveal"])
        check_quiz_policy(**policy)
        # The answers tell the marks: marks asked for later than the answers show with them.
        policy["marks"] = min(policy["marks"], policy["reveal"], key=MOMENTS.index)
        kind = kinds.of(item)
        if not kind.handed_out:
            raise TypeError(f"{item!r} cannot be handed out")
        if item.owner_id != teacher.pk:
            raise NotATeacher("Only the teacher who made it can hand it out.")
        if not SchoolClass.objects.taught_by(teacher).filter(pk=school_class.pk).exists():
            raise NotATeacher(f"You do not teach {school_class.name}.")
        note = note.strip()[:500]
        try:
            with transaction.atomic():
                made = self.create(
                    teacher=teacher,
                    school_class=school_class,
                    kind=kind.name,
                    item_id=item.pk,
                    note=note,
                    due=due,
                    **policy,
                )
        except IntegrityError:  # one set per item and class (two at once: one wins)
            raise AlreadyHandedOut(
                f"This {kind.name} is handed out to {school_class.name} already."
            ) from None
        made.item = item
        return made

    def for_item(self, item):
        """The sets `item` is handed out in: one per class at most."""
        return self.filter(kind=kinds.of(item).name, item_id=item.pk)

    def with_items(self) -> list["ClassSet"]:
        """These sets, each with its item: a query for the sets and one per kind among them."""
        sets = list(self)
        wanted = defaultdict(list)
        for class_set in sets:
            wanted[class_set.kind].append(class_set.item_id)
        items = {name: kinds.get(name).model.objects.in_bulk(ids) for name, ids in wanted.items()}
        for class_set in sets:
            class_set.item = items[class_set.kind][class_set.item_id]
        return sets

    def readable_by(self, user):
        """A teacher's: the sets of the classes they teach. A student's: every set handed out
        to their classes whose item is ready (one still being made, or that failed, is the
        teacher's alone)."""
        if is_student(user):
            return self.handed_to(user).ready()
        return self.taught_by(user)

    def handed_to(self, student):
        """The sets handed out to the classes `student` is in. What a student reads of each
        kind follows (`handed_out_ids`)."""
        return self.filter(school_class__in=SchoolClass.objects.joined_by(student))

    def ready(self):
        """The sets whose item is ready: per kind, its ids among the ready rows."""
        ready = (
            models.Q(
                kind=kind.name, item_id__in=kind.model.objects.filter(status=READY).values("pk")
            )
            for kind in kinds.handed_out()
        )
        return self.filter(reduce(or_, ready, models.Q(pk__in=[])))


class ClassSet(models.Model):
    teacher = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="class_sets"
    )
    school_class = models.ForeignKey(
        SchoolClass, on_delete=models.CASCADE, related_name="class_sets"
    )
    kind = models.CharField(max_length=30)  # a kind's name (apps/study/kinds.py)
    item_id = models.BigIntegerField()  # the pk of a row of the kind's model
    note = models.CharField(max_length=500, blank=True)
    due = models.DateField(null=True, blank=True)
    # A quiz's policy for the class (apps/study/classsets/policy.py).
    attempts = models.PositiveSmallIntegerField(
        null=True, blank=True, default=1, help_text="Attempts allowed; empty for unlimited."
    )
    grading = models.CharField(max_length=10, choices=Grading.choices, default=Grading.FIRST)
    reveal = models.CharField(max_length=14, choices=Reveal.choices, default=Reveal.AFTER_DUE)
    marks = models.CharField(max_length=14, choices=Marks.choices, default=Marks.AFTER_ATTEMPT)
    released_at = models.DateTimeField(
        null=True, blank=True, help_text="When the teacher released the answers to the class."
    )
    handed_out_at = models.DateTimeField(auto_now_add=True)

    objects = ClassSetQuerySet.as_manager()

    class Meta:
        ordering = ["-handed_out_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "item_id", "school_class"], name="one_class_set_per_item_and_class"
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind}: {self.item}"

    @cached_property
    def item(self):
        """The row handed out, of the kind's model."""
        return kinds.get(self.kind).model.objects.get(pk=self.item_id)

    def study_url(self) -> str:
        """The page a student studies the item on."""
        return kinds.get(self.kind).url(self.item)

    @property
    def reveal_phrase(self) -> str:
        """When the answers show, inside a sentence ("after the due date, or when I release
        them"): the choice's label without its capital, which `lower` would take from the I."""
        return uncapitalised(self.get_reveal_display())

    @property
    def marks_phrase(self) -> str:
        """When the marks show, inside a sentence ("after each attempt")."""
        return uncapitalised(self.get_marks_display())

    def quiz_policy(self) -> QuizPolicy:
        return QuizPolicy(
            attempts=self.attempts,
            grading=self.grading,
            reveal=self.reveal,
            marks=self.marks,
            due=self.due,
            released=self.released_at is not None,
            for_class=True,
            zone=LocalZone.objects.zone_for(self.teacher_id),
        )

    def release(self) -> None:
        """Show the class the correct answers and explanations of a quiz, and so their marks,
        whatever its policy."""
        if self.kind != "quiz":
            raise InvalidInput("Only a quiz has answers to release.")
        if self.released_at is None:
            self.released_at = timezone.now()
            self.save(update_fields=["released_at"])


def uncapitalised(label: str) -> str:
    return label[:1].lower() + label[1:]


@ownership.handed_out_by
def handed_out_ids(model, student) -> models.QuerySet:
    """The pks of the rows of `model` (a kind's) handed out to the student's class."""
    sets = ClassSet.objects.handed_to(student)
    return sets.filter(kind=kinds.of_model(model).name).values("item_id")


@receiver(kinds.declared)
def follow_deletes(sender, kind: kinds.Kind, **kwargs) -> None:
    """Deleting an item of a kind handed out deletes its class set (no foreign key does)."""
    if kind.handed_out:
        post_delete.connect(
            partial(take_back_deleted, kind.name),
            sender=kind.model,
            weak=False,
            dispatch_uid=f"class-set-of-{kind.name}",
        )


def take_back_deleted(kind: str, sender, instance, **kwargs) -> None:
    ClassSet.objects.filter(kind=kind, item_id=instance.pk).delete()
