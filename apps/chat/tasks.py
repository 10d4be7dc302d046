"""Celery tasks of the chat: writing an answer, on the `chat` queue (CELERY_TASK_ROUTES), and
reading an attachment, on the `celery` queue with ingestion, so chat workers are not taken.

Late acknowledgement: a message whose worker died is delivered again, and then finds its
answer taken by a worker that went silent, so it marks it interrupted instead of writing it
twice. A worker that starts settles what it was writing when it died, and queues again the
answers nobody took (apps/jobs/recovery.py; a claim is atomic, so a second copy in the queue
is harmless). Attachments alike, on the jobs worker.
"""

from celery import shared_task

from apps.chat import answering, attachments
from apps.chat.models import Attachment, Message
from apps.jobs.recovery import at_worker_start


def enqueue(answer_id: int) -> None:
    """Queue an answer for a chat worker (after the transaction that made it commits)."""
    write_answer.delay_on_commit(answer_id)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def write_answer(self, answer_id: int) -> None:
    answering.write(answer_id, worker=self.request.hostname or "worker")


@at_worker_start("chat")
def recover(worker: str) -> tuple[list[int], list[int]]:
    """Its own answers cut short by its death are interrupted, and shown so; answers no worker
    took yet are queued again. Returns (interrupted, queued) ids."""
    streaming = Message.objects.running()
    interrupted = answering.settle(streaming.filter(worker=worker))
    queued = list(streaming.untaken().values_list("pk", flat=True))
    for answer_id in queued:
        enqueue(answer_id)
    return interrupted, queued


def enqueue_reading(attachment_id: int) -> None:
    """Queue an attachment for the jobs worker to read (after the transaction that made it)."""
    read_attachment.delay_on_commit(attachment_id)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def read_attachment(self, attachment_id: int) -> None:
    attachments.read(attachment_id, worker=self.request.hostname or "worker")


@at_worker_start("celery")
def recover_attachments(worker: str) -> tuple[list[int], list[int]]:
    """What it was reading when it died fails as interrupted; attachments no worker took yet
    are queued again. Returns (interrupted, queued) ids."""
    interrupted, queued = Attachment.objects.recover(worker)
    for attachment_id in queued:
        read_attachment.delay(attachment_id)
    return interrupted, queued
