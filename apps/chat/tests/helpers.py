"""A chat socket opened as a person, the frames it receives until an answer settles, the text
of the one chunk the `cell_notes` fixture holds, the app's channel layer on a test's Redis, and
recordings of silence (some with a header that lies about their length)."""

import asyncio
import io
import re

import av
import numpy as np
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.conf import settings as configured

from apps.chat.routing import websocket_urlpatterns
from tests.helpers.slowness import scaled

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
    connected, _ = await communicator.connect(timeout=scaled(5))
    assert connected
    await communicator.receive_from(timeout=scaled(5))  # the conversation as it is
    return communicator


async def frames_until_final(communicator, timeout: float = 15) -> list[str]:
    frames = []
    deadline = asyncio.get_running_loop().time() + scaled(timeout)
    while True:
        left = deadline - asyncio.get_running_loop().time()
        frame = await communicator.receive_from(timeout=max(left, 0.01))
        frames.append(frame)
        if FINAL.search(frame):
            return frames


RATE = 8000


def silent_flac(seconds: int) -> bytes:
    """`seconds` of silence as FLAC: twelve hours are under 8 MB."""
    out = io.BytesIO()
    with av.open(out, "w", format="flac") as container:
        stream = container.add_stream("flac", rate=RATE, layout="mono")
        total, size = seconds * RATE, 32768
        for start in range(0, total, size):
            block = np.zeros((1, min(size, total - start)), dtype=np.int16)
            frame = av.AudioFrame.from_ndarray(block, format="s16", layout="mono")
            frame.sample_rate, frame.pts = RATE, start
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    return out.getvalue()


def claiming(flac: bytes, seconds: int) -> bytes:
    """The same FLAC with a STREAMINFO header that lies: it claims `seconds` in all."""
    fields = int.from_bytes(flac[18:26], "big")  # rate, channels, bits, then 36 bits of samples
    fields = (fields & ~((1 << 36) - 1)) | (seconds * RATE)
    return flac[:18] + fields.to_bytes(8, "big") + flac[26:]
