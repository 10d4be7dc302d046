"""A chat socket opened as a person, the frames it receives until an answer settles, the text
of the one chunk the `cell_notes` fixture holds, and the app's channel layer on a test's Redis."""

import asyncio
import re

from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.conf import settings as configured

from apps.chat.routing import websocket_urlpatterns

CHUNK_TEXT = "Mitochondria are the powerhouse of the cell: they make ATP from glucose."
FINAL = re.compile(r'class="message assistant (done|stopped|failed)" hx-swap-oob')
# The app's channel layer as configured, read before a test swaps in the in-memory one.
APP_LAYER = configured.CHANNEL_LAYERS["default"]


def app_layer(redis_url: str, prefix: str) -> dict:
    """The app's channel layer settings on the test's Redis, its names under `prefix`."""
    return {**APP_LAYER, "CONFIG": {**APP_LAYER["CONFIG"], "hosts": [redis_url], "prefix": prefix}}


async def open_socket(user, thread_id: int) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/chat/{thread_id}/")
    communicator.scope["user"] = user
    connected, _ = await communicator.connect()
    assert connected
    await communicator.receive_from(timeout=5)  # the conversation as it is
    return communicator


async def frames_until_final(communicator, timeout: float = 15) -> list[str]:
    frames = []
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        left = deadline - asyncio.get_running_loop().time()
        frame = await communicator.receive_from(timeout=max(left, 0.01))
        frames.append(frame)
        if FINAL.search(frame):
            return frames
