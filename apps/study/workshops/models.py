"""Workshops: an outline of lessons, each written as Markdown the first time it is opened."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from apps.jobs.lifecycle import Job
from apps.progress import tracking
from apps.study.errors import LessonNotWritten
from apps.study.generation_job import Generated, GenerationQuerySet, one_per_request
from apps.study.quizzes.models import Quiz


class Workshop(Generated):
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

    objects = GenerationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [one_per_request("workshop")]

    def __str__(self) -> str:
        return self.title

    @property
    def progress(self) -> tuple[int, int]:
        lessons = list(self.lessons.all())
        return sum(1 for lesson in lessons if lesson.completed_at), len(lessons)

    def completed_by(self, user) -> set[int]:
        """Ids of the lessons `user` completed: the lessons' own marks for the owner, the
        student's completions on a workshop handed out to the class."""
        if user.pk == self.owner_id:
            return set(self.lessons.filter(completed_at__isnull=False).values_list("pk", flat=True))
        done = LessonCompletion.objects.filter(lesson__workshop=self, student=user)
        return set(done.values_list("lesson_id", flat=True))

    def progress_of(self, user) -> tuple[int, int]:
        return len(self.completed_by(user)), self.lessons.count()

    def complete_lesson(self, lesson: "Lesson", by=None) -> tuple[bool, list]:
        """Mark one written lesson done for `by` (the owner unless said) and record it for
        their progress; (True when that completed the whole workshop just now, badges just
        earned)."""
        if lesson.status != Lesson.Status.READY:
            raise LessonNotWritten("Open the lesson first: it has not been written yet.")
        by = by or self.owner
        if by.pk != self.owner_id:
            _, created = LessonCompletion.objects.get_or_create(lesson=lesson, student=by)
            if not created:
                return False, []
            badges = tracking.record_lesson_completed(by)
            done, total = self.progress_of(by)
            if done == total:
                return True, badges + tracking.record_workshop_completed(by)
            return False, badges
        badges = []
        if lesson.completed_at is None:
            lesson.completed_at = timezone.now()
            lesson.save(update_fields=["completed_at"])
            badges += tracking.record_lesson_completed(self.owner)
        done, total = self.progress
        if done == total and self.completed_at is None:
            self.completed_at = timezone.now()
            self.save(update_fields=["completed_at"])
            return True, badges + tracking.record_workshop_completed(self.owner)
        return False, badges

    @property
    def recap_quiz(self) -> Quiz | None:
        return self.recap_quizzes.order_by("-pk").first()


class LessonQuerySet(GenerationQuerySet):
    owner_lookup = "workshop__owner"
    item_lookup = "workshop"


class Lesson(Job):
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
    extractive = models.BooleanField(
        default=False, help_text="Cut from the documents' passages, not written by a model."
    )
    generated_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    # While a worker writes it (see apps/study/generation_job.py).
    worker = models.CharField(max_length=200, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    objects = LessonQuerySet.as_manager()

    class Meta:
        ordering = ["workshop_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["workshop", "number"], name="unique_lesson_number")
        ]

    def __str__(self) -> str:
        return f"{self.number}. {self.title}"


class LessonCompletion(models.Model):
    """A student completed a lesson of a workshop handed out to the class."""

    lesson = models.ForeignKey(Lesson, on_delete=models.CASCADE, related_name="completions")
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="lesson_completions"
    )
    completed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["lesson", "student"], name="one_completion_per_student")
        ]

    def __str__(self) -> str:
        return f"{self.lesson} by {self.student_id}"
