"""Celery tasks of the chat: writing an answer, on the `chat` queue (CELERY_TASK_ROUTES).

Late acknowledgement: a message whose worker died is delivered again, and then finds its
answer taken by a worker that went silent, so it marks it interrupted instead of writing it
twice. A worker that starts settles what it was writing when it died, and queues again the
answers nobody took (a claim is atomic, so a second copy in the queue is harmless).
"""

import logging

from celery import shared_task
from celery.signals import worker_ready
from django.db import close_old_connections

from apps.chat import answering
from apps.chat.models import Message

logger = logging.getLogger(__name__)


def enqueue(answer_id: int) -> None:
    """Queue an answer for a chat worker (after the transaction that made it commits)."""
    write_answer.delay_on_commit(answer_id)


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def write_answer(self, answer_id: int) -> None:
    answering.write(answer_id, worker=self.request.hostname or "worker")


def recover(worker: str) -> tuple[list[int], list[int]]:
    """At worker start: its own answers cut short by its death are interrupted; answers no
    worker took yet are queued again. Returns (interrupted, queued) ids."""
    streaming = Message.objects.filter(status=Message.Status.STREAMING)
    interrupted = answering.settle(streaming.filter(worker=worker))
    queued = list(streaming.filter(worker="").values_list("pk", flat=True))
    for answer_id in queued:
        enqueue(answer_id)
    return interrupted, queued


@worker_ready.connect
def on_worker_ready(sender, **kwargs) -> None:
    hostname = getattr(sender, "hostname", "") or ""
    queues = getattr(getattr(sender, "task_consumer", None), "queues", None) or []
    if "chat" not in {queue.name for queue in queues}:
        return  # only the workers of the chat queue write answers
    try:
        interrupted, queued = recover(hostname)
        if interrupted or queued:
            logger.info("Chat answers interrupted %s, queued again %s", interrupted, queued)
    except Exception:  # a worker must start even when the database is not ready yet
        logger.exception("Could not recover chat answers")
    finally:
        close_old_connections()
