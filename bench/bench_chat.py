"""Chat streaming: time from send to the first pushed fragment, and the app's overhead per
answer over the model's own streaming time, for 1 and 30 concurrent chats.

The model is a fake Ollama server on loopback that streams at a fixed rate, so what is
measured is the app: websocket consumer, agent loop, worker threads, batching, rendering.
"""

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["DATA_DIR"] = tempfile.mkdtemp(prefix="bench-chat-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cognivault_site.settings")
os.environ["LOG_LEVEL"] = "WARNING"

import django  # noqa: E402

django.setup()

from channels.routing import URLRouter  # noqa: E402
from channels.testing import WebsocketCommunicator  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402

from apps.chat.tests.model_script import EMBEDDING, chat_script  # noqa: E402
from apps.llm.tests.fake_ollama import FakeOllama  # noqa: E402

PART_DELAY = 0.01  # seconds between the model's parts
ROUNDS = 3


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def model_time(model: FakeOllama) -> float:
    """The model's own streaming time for one answer: the same three calls, nothing else."""
    from apps.llm import gateway

    start = time.perf_counter()
    for kwargs in (
        {"think": True},
        {"tools": [{"type": "function", "function": {"name": "x"}}]},
        {},
    ):
        messages = [{"role": "user", "content": "Why?"}]
        for _ in gateway.chat(messages, stream=True, **kwargs):
            pass
    return time.perf_counter() - start


async def one_chat(user, thread_id: int) -> tuple[float, float]:
    from apps.chat.routing import websocket_urlpatterns

    socket = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/chat/{thread_id}/")
    socket.scope["user"] = user
    await socket.connect()
    await socket.receive_from(timeout=30)
    sent = time.perf_counter()
    await socket.send_json_to({"content": "What do mitochondria do?"})
    first = None
    while True:
        frame = await socket.receive_from(timeout=60)
        if first is None and 'hx-swap-oob="beforeend"' in frame:
            first = time.perf_counter() - sent
        if 'class="message assistant done" hx-swap-oob' in frame:
            total = time.perf_counter() - sent
            break
        if 'class="message assistant failed" hx-swap-oob' in frame:
            raise RuntimeError(frame)
    await socket.disconnect()
    return first or total, total


async def run(users_threads) -> list[tuple[float, float]]:
    return await asyncio.gather(*(one_chat(user, thread) for user, thread in users_threads))


def main() -> None:
    from apps.accounts.models import User
    from apps.chat.models import Thread

    call_command("migrate", verbosity=0)
    model = FakeOllama(chat_script).start()
    model.delay = PART_DELAY
    model.embedding = EMBEDDING
    settings.OLLAMA_HOST = model.url
    settings.LLM_BACKEND = settings.EMBEDDING_BACKEND = "ollama"
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    baseline = statistics.median(model_time(model) for _ in range(3))

    rows = []
    for concurrent in (1, 30):
        firsts, overheads, ratios = [], [], []
        for round_number in range(ROUNDS):
            pairs = []
            for index in range(concurrent):
                user = User.objects.create_user(f"bench-{concurrent}-{round_number}-{index}")
                pairs.append((user, Thread.objects.create(owner=user).pk))
            for first, total in asyncio.run(run(pairs)):
                firsts.append(first)
                overheads.append(total - baseline)
                ratios.append(total / baseline)
        rows.append((concurrent, firsts, overheads, ratios))
    model.stop()

    print(
        "### Chat streaming (fake model: 3 calls, "
        f"{PART_DELAY * 1000:.0f} ms per part, own time {baseline * 1000:.0f} ms)"
    )
    print()
    print(
        "| concurrent chats | first fragment median | p95 | overhead per answer median | p95 "
        "| answer time / model time |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for concurrent, firsts, overheads, ratios in rows:
        print(
            f"| {concurrent} | {statistics.median(firsts) * 1000:.0f} ms "
            f"| {p95(firsts) * 1000:.0f} ms | {statistics.median(overheads) * 1000:.0f} ms "
            f"| {p95(overheads) * 1000:.0f} ms | {statistics.median(ratios):.2f}× |"
        )


if __name__ == "__main__":
    main()
