"""Chat threads and their messages: questions, answers with citations, scope and attachments.

The history lives here, so it survives restarts; the memory window the model sees is a rule
of the thread (`Thread.memory`), shared by the websocket, the API and the tests.
"""

from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import models, transaction

from apps.jobs.lifecycle import Job, JobQuerySet

MEMORY_BUDGET = 48_000  # characters of conversation the model is given, oldest pairs first out
TITLE_LENGTH = 60


class OwnedQuerySet(models.QuerySet):
    def visible_to(self, user):
        """A person's own threads, attachments and recordings; chats are never shared, not even
        with teachers."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(owner=user)


@dataclass(frozen=True)
class Memory:
    pairs: list[tuple["Message", "Message"]]
    used: int
    budget: int = MEMORY_BUDGET

    @property
    def percent(self) -> int:
        return min(100, round(100 * self.used / self.budget)) if self.budget else 100


def fit_memory(pairs: list[tuple["Message", "Message"]], extra: int, budget: int) -> Memory:
    """Keep the newest question/answer pairs whose characters, plus `extra`, fit `budget`."""
    kept = list(pairs)
    used = extra + sum(len(q.content) + len(a.content) for q, a in kept)
    while kept and used > budget:
        question, answer = kept.pop(0)
        used -= len(question.content) + len(answer.content)
    return Memory(kept, used, budget)


class Thread(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_threads"
    )
    title = models.CharField(max_length=200, default="New chat")
    titled = models.BooleanField(default=False, help_text="Named by its first question or by hand.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        ordering = ["-updated_at", "-id"]

    def __str__(self) -> str:
        return self.title

    def pairs(self, before: "Message | None" = None) -> list[tuple["Message", "Message"]]:
        """Answered questions in order (a failed or unanswered question is not memory)."""
        messages = self.messages.all()
        if before is not None:
            messages = messages.filter(pk__lt=before.pk)
        return answered_pairs(messages)

    def memory(self, question: "Message | None" = None, budget: int = MEMORY_BUDGET) -> Memory:
        """What the model is given before `question` (or after the last answer, when None)."""
        extra = len(question.content) if question is not None else 0
        return fit_memory(self.pairs(before=question), extra, budget)

    def busy(self) -> bool:
        """Whether an answer is being written (or waits for a worker). One whose worker went
        silent will never finish: it is marked interrupted, and does not count."""
        cutoff = Message.objects.cutoff()
        streaming = self.messages.running()
        answers = list(streaming.values_list("pk", "worker", "heartbeat_at"))
        stale = [pk for pk, worker, beat in answers if worker and beat and beat < cutoff]
        settled = streaming.filter(pk__in=stale).stale().interrupt() if stale else []
        return len(answers) > len(settled)

    def request_stop(self) -> list[int]:
        """Stop this thread's answer from any web process: the worker writing it reads the
        flag; one no worker has taken yet is stopped here. Returns the ids stopped here."""
        waiting = self.messages.untaken()
        stopped = list(waiting.values_list("pk", flat=True))
        waiting.filter(pk__in=stopped).update(status=Message.Status.STOPPED)
        self.messages.running().update(stop_requested=True)
        return stopped

    @transaction.atomic(savepoint=False)  # inside a caller's transaction: no savepoint of its own
    def ask(self, content: str, scope: dict, scope_label: str, attachments=()) -> "Message":
        """Add a question and the empty answer the agent will write; returns the answer."""
        question = self.messages.create(
            role=Message.Role.USER, content=content, scope=scope, scope_label=scope_label
        )
        for attachment in attachments:
            attachment.message = question
            attachment.save(update_fields=["message"])
        if not self.titled:
            self.title = title_from(content)
            self.titled = True
        self.save()
        return self.messages.create(role=Message.Role.ASSISTANT, status=Message.Status.STREAMING)

    @transaction.atomic(savepoint=False)  # inside a caller's transaction: no savepoint of its own
    def rewind(self, question: "Message", content: str) -> "Message":
        """Edit an earlier question: everything after it goes, a fresh answer follows."""
        self.messages.filter(pk__gt=question.pk).delete()
        question.content = content
        question.save(update_fields=["content"])
        self.save()
        return self.messages.create(role=Message.Role.ASSISTANT, status=Message.Status.STREAMING)

    @transaction.atomic(savepoint=False)  # inside a caller's transaction: no savepoint of its own
    def regenerate(self) -> "Message | None":
        """Replace the last answer with a fresh one; None when there is nothing to redo."""
        last_question = self.messages.filter(role=Message.Role.USER).last()
        if last_question is None:
            return None
        self.messages.filter(pk__gt=last_question.pk).delete()
        self.save()
        return self.messages.create(role=Message.Role.ASSISTANT, status=Message.Status.STREAMING)


def answered_pairs(messages) -> list[tuple["Message", "Message"]]:
    """The question/answer pairs of a thread's messages (in order) that the model remembers."""
    pairs, question = [], None
    for message in messages:
        if message.role == Message.Role.USER:
            question = message
        elif question is not None and message.remembered:
            pairs.append((question, message))
            question = None
    return pairs


def title_from(question: str) -> str:
    words = " ".join(question.split())
    if len(words) <= TITLE_LENGTH:
        return words or "New chat"
    return words[:TITLE_LENGTH].rsplit(" ", 1)[0] + "…"


INTERRUPTED = "Interrupted: the worker writing this answer stopped. Regenerate it."


class MessageQuerySet(JobQuerySet):
    RUNNING = "streaming"
    INTERRUPTED = INTERRUPTED
    STALE_SETTING = "CHAT_STALE_SECONDS"


class Message(models.Model):
    class Role(models.TextChoices):
        USER = "user"
        ASSISTANT = "assistant"

    class Status(models.TextChoices):
        STREAMING = "streaming"
        DONE = "done"
        STOPPED = "stopped"
        FAILED = "failed"

    thread = models.ForeignKey(Thread, on_delete=models.CASCADE, related_name="messages")
    role = models.CharField(max_length=10, choices=Role.choices)
    content = models.TextField(blank=True)
    thinking = models.TextField(blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DONE)
    error = models.TextField(blank=True)
    scope = models.JSONField(default=dict, blank=True, help_text="{category_ids, document_ids}")
    scope_label = models.CharField(max_length=500, blank=True)
    citations = models.JSONField(default=list, blank=True)
    backend = models.CharField(max_length=20, blank=True)
    model = models.CharField(max_length=200, blank=True)
    # While an answer is written: the worker that took it, when it last showed signs of life
    # (the partial answer is saved with it), and whether someone pressed stop.
    worker = models.CharField(max_length=200, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    stop_requested = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = MessageQuerySet.as_manager()

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.role}: {self.content[:40]}"

    @property
    def live(self) -> bool:
        """Still being written (or waiting for a worker): shown as plain text as it grows."""
        return self.status == self.Status.STREAMING

    @property
    def remembered(self) -> bool:
        """Answers the model keeps in its memory: finished ones, and stopped ones with text."""
        return self.status == self.Status.DONE or (
            self.status == self.Status.STOPPED and bool(self.content)
        )

    @property
    def is_user(self) -> bool:
        return self.role == self.Role.USER

    def question(self) -> "Message | None":
        return self.thread.messages.filter(role=self.Role.USER, pk__lt=self.pk).last()


class AttachmentQuerySet(OwnedQuerySet, JobQuerySet):
    """Reading an attachment is a job of the jobs worker, as ingestion is (docs/chat.md)."""

    RUNNING = "pending"  # waiting for the worker, or being read
    INTERRUPTED = "The worker reading this file stopped; attach it again."
    STALE_SETTING = "INGEST_STALE_SECONDS"


class Attachment(Job):
    class Kind(models.TextChoices):
        IMAGE = "image"
        PDF = "pdf"
        DOCX = "docx"

    class Status(models.TextChoices):
        PENDING = "pending"  # stored, waiting for a worker to read it
        READY = "ready"
        FAILED = "failed"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_attachments"
    )
    message = models.ForeignKey(
        Message, null=True, blank=True, on_delete=models.CASCADE, related_name="attachments"
    )
    filename = models.CharField(max_length=255, help_text="The uploader's name for it: a label.")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    stored_name = models.CharField(max_length=100, unique=True)
    size_bytes = models.PositiveBigIntegerField()
    text = models.TextField(blank=True, help_text="Extracted text of a PDF or DOCX.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    error = models.TextField(blank=True, help_text="Why it could not be read.")
    worker = models.CharField(max_length=200, blank=True, help_text="The worker reading it.")
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    saved_document = models.ForeignKey(
        "vault.Document", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = AttachmentQuerySet.as_manager()

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.filename

    def refusal(self) -> str:
        """Why a question cannot be sent with this attachment yet; empty when it can."""
        if self.status == self.Status.PENDING:
            return f"{self.filename} is still being read: send again when it shows as ready."
        if self.status == self.Status.FAILED:
            return f"{self.error} Remove {self.filename} to send the question."
        return ""

    @property
    def path(self) -> Path:
        return attachments_dir() / self.stored_name


def attachments_dir() -> Path:
    return settings.DATA_DIR / "chat" / "attachments"


class TranscriptionQuerySet(OwnedQuerySet, JobQuerySet):
    """Transcribing a recording is a job of the jobs worker, as reading an attachment is: the
    web process stores the upload and never decodes it (docs/chat.md)."""

    RUNNING = "transcribing"  # waiting for the worker, or being transcribed
    INTERRUPTED = "The worker transcribing this recording stopped; record it again."
    STALE_SETTING = "INGEST_STALE_SECONDS"


class Transcription(Job):
    class Status(models.TextChoices):
        TRANSCRIBING = "transcribing"
        READY = "ready"
        FAILED = "failed"

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="transcriptions"
    )
    stored_name = models.CharField(max_length=100, unique=True)
    size_bytes = models.PositiveBigIntegerField()
    seconds = models.FloatField(null=True, blank=True, help_text="The recording's length.")
    progress = models.PositiveSmallIntegerField(default=0, help_text="Percent transcribed.")
    text = models.TextField(blank=True)
    status = models.CharField(max_length=15, choices=Status.choices, default=Status.TRANSCRIBING)
    error = models.TextField(blank=True, help_text="Why it could not be transcribed.")
    error_status = models.PositiveSmallIntegerField(
        default=503, help_text="The HTTP status an API client is told a failure with."
    )
    worker = models.CharField(max_length=200, blank=True, help_text="The worker doing it.")
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TranscriptionQuerySet.as_manager()

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.owner}: {self.status}"

    @property
    def path(self) -> Path:
        return recordings_dir() / self.stored_name


def recordings_dir() -> Path:
    """Recordings waiting to be transcribed; each is deleted once it was."""
    return settings.DATA_DIR / "chat" / "recordings"
