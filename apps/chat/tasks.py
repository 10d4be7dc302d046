"""Celery tasks of the chat: writing an answer, on the `chat` queue (CELERY_TASK_ROUTES), and
reading an attachment, on the `celery` queue with ingestion, so chat workers are not taken.

Late acknowledgement: a message whose worker died is delivered again, and then finds its
answer taken by a worker that went silent, so it marks it interrupted instead of writing it
twice. A worker that starts settles what it was writing when it died, and queues again the
answers nobody took (a claim is atomic, so a second copy in the queue is harmless).
"""

import logging

from celery import shared_task
from celery.signals import worker_ready
from django.db import close_old_connections

from apps.chat import answering, attachments
from apps.chat.models import Attachment, Message

logger = logging.getLogger(__name__)


def enqueue(answer_id: int) -> None:
    """Queue an answer for a chat worker (after the transaction that made it commits)."""
    write_answer.delay_on_commit(answer_id)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def write_answer(self, answer_id: int) -> None:
    answering.write(answer_id, worker=self.request.hostname or "worker")


def enqueue_reading(attachment_id: int) -> None:
    """Queue an attachment for a jobs worker to read (after the transaction that made it)."""
    read_attachment.delay_on_commit(attachment_id)


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def read_attachment(attachment_id: int) -> None:
    attachments.read(attachment_id)


def recover(worker: str) -> tuple[list[int], list[int]]:
    """At worker start: its own answers cut short by its death are interrupted; answers no
    worker took yet are queued again. Returns (interrupted, queued) ids."""
    streaming = Message.objects.filter(status=Message.Status.STREAMING)
    interrupted = answering.settle(streaming.filter(worker=worker))
    queued = list(streaming.filter(worker="").values_list("pk", flat=True))
    for answer_id in queued:
        enqueue(answer_id)
    return interrupted, queued


def worker_queues(sender) -> set[str]:
    queues = getattr(getattr(sender, "task_consumer", None), "queues", None) or []
    return {queue.name for queue in queues}


@worker_ready.connect
def read_pending_attachments(sender, **kwargs) -> None:
    """A jobs worker that starts queues again the attachments still waiting to be read (their
    worker died, or none was running): reading one twice is harmless."""
    if "celery" not in worker_queues(sender):
        return
    try:
        pending = Attachment.objects.filter(status=Attachment.Status.PENDING)
        for attachment_id in pending.values_list("pk", flat=True):
            read_attachment.delay(attachment_id)
    except Exception:  # a worker must start even when the database is not ready yet
        logger.exception("Could not queue the attachments waiting to be read")
    finally:
        close_old_connections()


@worker_ready.connect
def on_worker_ready(sender, **kwargs) -> None:
    hostname = getattr(sender, "hostname", "") or ""
    if "chat" not in worker_queues(sender):
        return  # only the workers of the chat queue write answers
    try:
        interrupted, queued = recover(hostname)
        if interrupted or queued:
            logger.info("Chat answers interrupted %s, queued again %s", interrupted, queued)
    except Exception:  # a worker must start even when the database is not ready yet
        logger.exception("Could not recover chat answers")
    finally:
        close_old_connections()
