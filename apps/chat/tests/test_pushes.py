"""What the chat workers push reaches every page, also when a web process falls behind: a
class asking at once pushes hundreds of frames before daphne has relayed the first ones."""

import uuid

import pytest
from django.utils.module_loading import import_string

from apps.chat.tests.helpers import app_layer

pytestmark = pytest.mark.asyncio

ANSWERS = 30
FRAMES = 20  # an answer's first words, each its own push


def layer(redis_url: str, prefix: str):
    configured = app_layer(redis_url, prefix)
    return import_string(configured["BACKEND"])(**configured["CONFIG"])


async def test_a_web_process_behind_by_a_class_of_answers_loses_no_frame(redis_url):
    prefix = uuid.uuid4().hex[:8]
    # A web process and a chat worker, each with its own connections.
    web, worker = layer(redis_url, prefix), layer(redis_url, prefix)
    # The sockets of one web process, each in its thread's group.
    pages = [await web.new_channel() for _ in range(ANSWERS)]
    for thread, page in enumerate(pages):
        await web.group_add(f"chat-thread-{thread}", page)
    for frame in range(FRAMES):
        for thread in range(ANSWERS):
            message = {"type": "chat.html", "html": f"{thread}:{frame}"}
            await worker.group_send(f"chat-thread-{thread}", message)

    for thread, page in enumerate(pages):
        received = [(await web.receive(page))["html"] for _ in range(FRAMES)]
        assert received == [f"{thread}:{frame}" for frame in range(FRAMES)]
    await web.flush()
    await worker.flush()
