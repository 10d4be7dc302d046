"""A chat socket opened as a person, the frames it receives until an answer settles, and the
text of the one chunk the `cell_notes` fixture holds."""

import asyncio
import re

from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from apps.chat.routing import websocket_urlpatterns

CHUNK_TEXT = "Mitochondria are the powerhouse of the cell: they make ATP from glucose."
FINAL = re.compile(r'class="message assistant (done|stopped|failed)" hx-swap-oob')


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
