"""A chat thread that waits keeps SQLite's connection and gives PostgreSQL's back to its pool
(apps/chat/connections.py): an answer's agent waits on the model, and the sockets' shared
thread waits between questions."""

import asyncio
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from django.db.backends.signals import connection_created

from apps.chat.connections import database_sync_to_async
from apps.chat.models import Message
from apps.chat.tests.helpers import frames_until_final, open_socket
from tests.helpers.slowness import scaled

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


@pytest.fixture
def opened() -> list[str]:
    """The name of the thread that opened each database connection from now on (with
    PostgreSQL, each one taken from the pool)."""
    names: list[str] = []

    def note(sender, **kwargs) -> None:
        names.append(threading.current_thread().name)

    connection_created.connect(note, dispatch_uid="test-connections")
    yield names
    connection_created.disconnect(dispatch_uid="test-connections")


def opened_by(names: list[str], prefix: str) -> list[int]:
    """How many connections each thread whose name starts with `prefix` opened."""
    return [count for name, count in Counter(names).items() if name.startswith(prefix)]


@pytest.mark.asyncio
async def test_an_answer_keeps_sqlite_and_gives_postgresql_back_while_the_model_writes(
    fake_model, chat_worker, alice, alice_thread, cell_notes, opened
):
    socket = await open_socket(alice, alice_thread.pk)
    for question in ("What do mitochondria do?", "And what do they need?"):
        await socket.send_json_to({"content": question})
        frames = await frames_until_final(socket)
        assert 'class="message assistant done"' in frames[-1]
    await socket.disconnect()
    for worker in chat_worker:  # the badges are recorded after the answer's last frame
        worker.join(timeout=scaled(30))

    agents = opened_by(opened, "answer-")
    if connection.vendor == "sqlite":
        # One each, for its four stretches of queries between and after three model calls.
        assert agents == [1, 1], opened
    else:
        # Back to the pool before each wait on the model, and taken again after it.
        assert len(agents) == 2 and min(agents) >= 3, opened


def test_the_sockets_thread_keeps_sqlite_and_gives_postgresql_back_between_questions(opened):
    # In production the calls share asgiref's one thread for sync code; here a thread of the
    # test's own, which no earlier test has used.
    sockets_thread = ThreadPoolExecutor(1, thread_name_prefix="sockets")

    async def socket_calls() -> None:  # as daphne's event loop makes them
        for _ in range(3):
            count = database_sync_to_async(
                Message.objects.count, thread_sensitive=False, executor=sockets_thread
            )
            await count()

    asyncio.run(socket_calls())
    sockets_thread.submit(lambda: connection.close()).result()  # that thread's own
    sockets_thread.shutdown()

    calls = opened_by(opened, "sockets")
    assert calls == [1 if connection.vendor == "sqlite" else 3], opened
