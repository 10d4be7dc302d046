"""Celery tasks of the chat: writing an answer, on the `chat` queue; reading an attachment and
transcribing a recording, on the `celery` queue with ingestion, so chat workers are not taken
and the web process decodes nothing (settings.WORKER_QUEUES).

All are jobs of apps/jobs: a message delivered again after its worker died finds its row taken
by a silent worker and marks it interrupted instead of doing it twice, and a worker that starts
settles what it was doing when it died and queues again what nobody took.
"""

from celery import shared_task

from apps.chat import answering, attachments, pushes, transcriptions
from apps.chat.models import Attachment, Message, Transcription
from apps.jobs.recovery import at_worker_start, requeue
from apps.llm import gateway


def enqueue(answer_id: int) -> None:
    """Queue an answer for a chat worker (after the transaction that made it commits)."""
    write_answer.delay_on_commit(answer_id)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def write_answer(self, answer_id: int) -> None:
    answering.write(answer_id, worker=self.request.hostname or "worker")


@at_worker_start(write_answer)
def recover(worker: str) -> tuple[list[int], list[int]]:
    """Its own answers cut short by its death are interrupted, and shown so."""
    return requeue(Message.objects, worker, enqueue, interrupt=pushes.interrupt)


@at_worker_start(write_answer)
def load_the_model_client(worker: str) -> None:
    """The model's client loaded and its server asked once before the first answer: a class's
    first answers otherwise waited on one another for the import, a second on a slow machine
    (docs/benchmarks.md#on-half-the-cpu)."""
    gateway.current_backend()


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def read_attachment(self, attachment_id: int) -> None:
    attachments.read(attachment_id, worker=self.request.hostname or "worker")


@at_worker_start(read_attachment)
def recover_attachments(worker: str) -> tuple[list[int], list[int]]:
    return requeue(Attachment.objects, worker, read_attachment.delay)


def enqueue_transcription(transcription_id: int) -> None:
    """Queue a recording for the jobs worker (after the transaction that made it commits)."""
    transcribe_recording.delay_on_commit(transcription_id)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def transcribe_recording(self, transcription_id: int) -> None:
    transcriptions.transcribe(transcription_id, worker=self.request.hostname or "worker")


@at_worker_start(transcribe_recording)
def recover_transcriptions(worker: str) -> tuple[list[int], list[int]]:
    return requeue(Transcription.objects, worker, transcribe_recording.delay)
