"""What the chat workers push reaches every page, also when a web process falls behind: a
class asking at once pushes hundreds of frames before daphne has relayed the first ones."""

import uuid

import pytest
from channels_redis.core import RedisChannelLayer
from django.conf import settings as configured

pytestmark = pytest.mark.asyncio

# The app's channel layer as configured, read before a test swaps in the in-memory one.
APP_LAYER = configured.CHANNEL_LAYERS["default"]["CONFIG"]
ANSWERS = 30
FRAMES = 20  # an answer's first words, each its own push


async def test_a_web_process_behind_by_a_class_of_answers_loses_no_frame(redis_url):
    config = APP_LAYER
    layer = RedisChannelLayer(**{**config, "hosts": [redis_url], "prefix": uuid.uuid4().hex[:8]})
    # The sockets of one web process: their frames wait in the same Redis key.
    pages = [await layer.new_channel() for _ in range(ANSWERS)]
    for thread, page in enumerate(pages):
        await layer.group_add(f"chat-thread-{thread}", page)
    for frame in range(FRAMES):
        for thread in range(ANSWERS):
            message = {"type": "chat.html", "html": f"{thread}:{frame}"}
            await layer.group_send(f"chat-thread-{thread}", message)

    for thread, page in enumerate(pages):
        received = [(await layer.receive(page))["html"] for _ in range(FRAMES)]
        assert received == [f"{thread}:{frame}" for frame in range(FRAMES)]
    await layer.flush()
