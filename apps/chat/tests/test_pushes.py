"""What the chat workers push reaches every page, also when a web process falls behind: a
class asking at once pushes hundreds of frames before daphne has relayed the first ones."""

import uuid

import pytest
from django.conf import settings as configured
from django.utils.module_loading import import_string

pytestmark = pytest.mark.asyncio

# The app's channel layer as configured, read before a test swaps in the in-memory one.
APP_LAYER = configured.CHANNEL_LAYERS["default"]
ANSWERS = 30
FRAMES = 20  # an answer's first words, each its own push


def app_layer(redis_url: str, prefix: str):
    backend = import_string(APP_LAYER["BACKEND"])
    return backend(**{**APP_LAYER["CONFIG"], "hosts": [redis_url], "prefix": prefix})


async def test_a_web_process_behind_by_a_class_of_answers_loses_no_frame(redis_url):
    prefix = uuid.uuid4().hex[:8]
    # A web process and a chat worker, each with its own connections.
    web, worker = app_layer(redis_url, prefix), app_layer(redis_url, prefix)
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
