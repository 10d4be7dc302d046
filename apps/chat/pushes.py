"""Pushing to a thread's channel-layer group, which every page and API stream of the thread
reads (docs/architecture.md#the-socket-path-who-writes-an-answer): from the chat worker writing
an answer, and from any process that ends an answer without its worker (interrupted, stopped).
"""

import asyncio
import logging

from channels.layers import get_channel_layer
from redis.exceptions import RedisError

from apps.chat import frames
from apps.chat.conversation import END_PARTS, group_for, render_parts
from apps.chat.models import Message, Thread

log = logging.getLogger(__name__)


class Group:
    """The thread's group on an event loop of this answer's own: one Redis connection pool for
    the whole answer rather than one per push."""

    def __init__(self, thread_id: int) -> None:
        self.name = group_for(thread_id)
        self.layer = get_channel_layer()
        self.loop = asyncio.new_event_loop()

    def push(self, answer_id: int, html: str = "", lines=(), final: bool = False) -> None:
        message = {"type": "chat.html", "html": html, "answer_id": answer_id, "lines": list(lines)}
        if final:
            message["final"] = True
        try:
            self.loop.run_until_complete(self.layer.group_send(self.name, message))
        except (RedisError, OSError):  # Redis gone for a moment: pages catch up from the save
            log.warning("could not push to %s", self.name, exc_info=True)

    def close(self) -> None:
        self.loop.close()


def push_end(thread_id: int, answer_id: int, line: dict) -> None:
    """An answer ended without its worker: its saved state on every page, `line` the API's."""
    group = Group(thread_id)
    group.push(answer_id, render_parts(thread_id, END_PARTS, answer_id), [line], final=True)
    group.close()


def interrupt(answers) -> list[int]:
    """Mark these answers interrupted (the running ones; the callers pass stale ones, or a
    restarted worker's own) and show it to everyone watching their threads. Their ids."""
    answers = list(answers.values_list("pk", "thread_id"))
    interrupted = Message.objects.filter(pk__in=[pk for pk, _ in answers]).interrupt()
    for answer_id, thread_id in answers:
        if answer_id in interrupted:
            push_end(thread_id, answer_id, frames.INTERRUPTED_LINE)
    return interrupted


def stop(thread: Thread) -> None:
    """Stop the thread's answer, from any process: the worker writing it reads the flag; one no
    worker has taken yet ends here, on every page and API stream of the thread."""
    for answer_id in thread.request_stop():
        push_end(thread.pk, answer_id, frames.end_line(answer_id, "stopped"))
