"""Answers written by chat workers: stop from another socket, a page that joins mid-answer, an
answer whose worker went silent, a message delivered twice, a worker that starts again, and
the pace of the frames when a worker writes many answers at once."""

import asyncio
import threading
import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from apps.chat import answering, tasks
from apps.chat.agent import Event
from apps.chat.conversation import group_for
from apps.chat.models import INTERRUPTED, Message, Thread
from apps.chat.routing import websocket_urlpatterns
from apps.chat.tests.helpers import frames_until_final, open_socket
from apps.jobs import recovery
from apps.llm.backends import ollama
from apps.llm.tests.fake_ollama import part
from tests.helpers.slowness import scaled
from tests.helpers.users import client_for

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

WORDS = [f"word{i} " for i in range(150)]


def talkative(body: dict) -> list[dict]:
    return [] if body.get("think") else [part(word) for word in WORDS]


def answer_of(thread: Thread) -> Message:
    return thread.messages.filter(role=Message.Role.ASSISTANT).last()


def taken_answer(thread: Thread, worker: str, silent_for: float) -> Message:
    """An answer a worker took and last showed signs of life `silent_for` seconds ago."""
    answer = thread.ask("Still there?", {}, "")
    answer.content = "Half an ans"
    answer.worker = worker
    answer.heartbeat_at = timezone.now() - timedelta(seconds=silent_for)
    answer.save()
    return answer


@pytest.mark.asyncio
async def test_stop_from_a_second_socket_stops_the_answer(fake_model, alice, alice_thread):
    fake_model.script, fake_model.delay = talkative, 0.02
    asking = await open_socket(alice, alice_thread.pk)
    other_tab = await open_socket(alice, alice_thread.pk)
    await asking.send_json_to({"content": "Talk a lot"})
    while "word3" not in await other_tab.receive_from(timeout=scaled(10)):
        pass
    await other_tab.send_json_to({"action": "stop"})
    frames = await frames_until_final(asking)
    await asking.disconnect()
    await other_tab.disconnect()

    assert 'class="message assistant stopped"' in frames[-1]
    answer = await database_sync_to_async(answer_of)(alice_thread)
    assert answer.status == Message.Status.STOPPED
    assert answer.content.startswith("word0 word1 word2 word3") and "word149" not in answer.content


@pytest.mark.asyncio
async def test_a_page_that_joins_mid_answer_gets_what_is_saved_then_the_rest(
    fake_model, alice, alice_thread
):
    fake_model.script, fake_model.delay = talkative, 0.02
    asking = await open_socket(alice, alice_thread.pk)
    await asking.send_json_to({"content": "Talk a lot"})
    for _ in range(100):  # until the worker has saved part of the answer
        saved = await database_sync_to_async(answer_of)(alice_thread)
        if saved is not None and saved.content:
            break
        await asyncio.sleep(0.05)
    assert saved.status == Message.Status.STREAMING and saved.content.startswith("word0")
    joining = WebsocketCommunicator(
        URLRouter(websocket_urlpatterns), f"/ws/chat/{alice_thread.pk}/"
    )
    joining.scope["user"] = alice
    assert (await joining.connect(timeout=scaled(5)))[0]
    shown = await joining.receive_from(timeout=scaled(5))
    assert 'class="message assistant streaming"' in shown and "word0" in shown
    frames = await frames_until_final(joining)
    await frames_until_final(asking)
    await joining.disconnect()
    await asking.disconnect()
    assert 'class="message assistant done"' in frames[-1] and "word149" in frames[-1]


@pytest.mark.asyncio
async def test_an_open_page_is_told_when_the_worker_of_its_answer_goes_silent(
    settings, chat_worker, alice, alice_thread
):
    settings.CHAT_STALE_SECONDS = 1
    answer = await database_sync_to_async(taken_answer)(alice_thread, "chat@gone", silent_for=0)
    socket = await open_socket(alice, alice_thread.pk)
    frames = await frames_until_final(socket, timeout=10)
    await socket.disconnect()

    assert 'class="message assistant failed"' in frames[-1] and "Interrupted" in frames[-1]
    assert "Regenerate" in frames[-1] and "Half an ans" in frames[-1]
    await database_sync_to_async(answer.refresh_from_db)()
    assert answer.status == Message.Status.FAILED and answer.error == INTERRUPTED


def test_a_page_opened_after_the_worker_died_shows_the_answer_interrupted(
    settings, chat_worker, alice, alice_client, alice_thread
):
    settings.CHAT_STALE_SECONDS = 1
    taken_answer(alice_thread, "chat@gone", silent_for=5)
    page = alice_client.get(f"/chat/{alice_thread.pk}/").text
    assert "Interrupted" in page and "Half an ans" in page
    # ...and the next question is not refused as "still being written".
    assert alice_thread.ask("Again?", {}, "") is not None


def test_an_answer_a_live_worker_writes_is_not_interrupted(
    settings, chat_worker, alice, alice_client, alice_thread
):
    settings.CHAT_STALE_SECONDS = 30
    answer = taken_answer(alice_thread, "chat@alive", silent_for=1)
    alice_client.get(f"/chat/{alice_thread.pk}/")
    answer.refresh_from_db()
    assert answer.status == Message.Status.STREAMING


def test_a_message_delivered_again_never_writes_the_answer_twice(
    settings, chat_worker, fake_model, alice, alice_thread
):
    settings.CHAT_STALE_SECONDS = 5
    answer = taken_answer(alice_thread, "chat@first", silent_for=1)

    answering.write(answer.pk, "chat@second")  # its first worker is still writing it
    answer.refresh_from_db()
    assert answer.status == Message.Status.STREAMING and answer.worker == "chat@first"

    Message.objects.filter(pk=answer.pk).update(heartbeat_at=timezone.now() - timedelta(minutes=1))
    answering.write(answer.pk, "chat@second")  # that worker died with it
    answer.refresh_from_db()
    assert answer.status == Message.Status.FAILED and answer.error == INTERRUPTED
    assert fake_model.chats == []


def test_a_chat_worker_starting_again_settles_its_answers_and_queues_untaken_ones(
    chat_worker, monkeypatch, alice, bob
):
    mine = taken_answer(Thread.objects.create(owner=alice), "chat@me", silent_for=0)
    waiting = Thread.objects.create(owner=bob).ask("Anyone?", {}, "")
    queued = []
    monkeypatch.setattr(tasks, "enqueue", queued.append)

    assert tasks.recover("chat@me") == ([mine.pk], [waiting.pk])
    mine.refresh_from_db()
    assert mine.status == Message.Status.FAILED and mine.content == "Half an ans"
    assert queued == [waiting.pk]


def test_a_chat_worker_starting_asks_the_model_server_before_the_first_answer(settings, fake_model):
    settings.LLM_BACKEND = "auto"
    ollama.forget_servers()
    task, load = recovery.AT_START["apps.chat.tasks.load_the_model_client"]
    assert task is tasks.write_answer  # run when a worker of the chat queue starts

    load("chat@me")

    assert [path for path, _ in fake_model.requests] == ["/api/tags"]
    assert ollama.probe().reachable  # kept for the answers


def test_the_api_stops_the_answer_whichever_process_writes_it(alice, alice_thread, bob_client):
    answer = alice_thread.ask("Stop me", {}, "")
    Message.objects.claim(answer.pk, "chat@elsewhere")
    url = f"/api/v1/chat/sessions/{alice_thread.pk}/stop"
    assert bob_client.post(url).status_code == 404
    answer.refresh_from_db()
    assert not answer.stop_requested
    assert client_for(alice).post(url).status_code == 204
    answer.refresh_from_db()
    assert answer.stop_requested


def test_the_api_stream_ends_when_the_worker_of_its_answer_goes_silent(
    settings, chat_worker, monkeypatch, alice, alice_client, alice_thread
):
    settings.CHAT_STALE_SECONDS = 1

    def a_worker_that_dies(answer_id: int) -> None:
        Message.objects.claim(answer_id, "chat@doomed")

    monkeypatch.setattr(tasks, "enqueue", a_worker_that_dies)
    response = alice_client.post(
        f"/api/v1/chat/sessions/{alice_thread.pk}/messages",
        {"content": "Hello?"},
        content_type="application/json",
    )
    lines = b"".join(response).decode()
    assert '"type": "error"' in lines and "interrupted" in lines
    assert answer_of(alice_thread).status == Message.Status.FAILED


@pytest.mark.asyncio
async def test_an_answer_no_worker_took_yet_waits_visibly_and_stops_at_once(
    chat_worker, monkeypatch, alice, alice_thread
):
    monkeypatch.setattr(tasks, "enqueue", lambda answer_id: None)  # every worker is busy
    socket = await open_socket(alice, alice_thread.pk)
    await socket.send_json_to({"content": "Anyone there?"})
    asked = await socket.receive_from(timeout=scaled(5))
    assert "Waiting for a chat worker" in asked
    await socket.send_json_to({"action": "stop"})
    frames = await frames_until_final(socket)
    await socket.disconnect()
    assert 'class="message assistant stopped"' in frames[-1]
    answer = await database_sync_to_async(answer_of)(alice_thread)
    assert answer.status == Message.Status.STOPPED
    # A worker that gets to it later leaves it alone.
    await database_sync_to_async(answering.write)(answer.pk, "chat@late")
    await database_sync_to_async(answer.refresh_from_db)()
    assert answer.status == Message.Status.STOPPED and answer.worker == ""


def test_the_api_stops_an_answer_no_worker_took_yet(chat_worker, alice, alice_client, alice_thread):
    answer = alice_thread.ask("Stop me", {}, "")
    assert alice_client.post(f"/api/v1/chat/sessions/{alice_thread.pk}/stop").status_code == 204
    answer.refresh_from_db()
    assert answer.status == Message.Status.STOPPED


def steady_words(answer_id: int, cancel) -> Iterator[Event]:
    """A model writing 60 words over about 1.2 s."""
    for number in range(60):
        time.sleep(0.02)
        yield Event("text", f"w{number} ")


def words_pushed(threads: list[Thread]) -> list[list[str]]:
    """Write an answer in each thread at once, as a worker's threads do; the text of each frame
    each thread's page received."""
    layer = get_channel_layer()
    writers = [
        threading.Thread(target=answering.Answer(thread.ask("Go", {}, "").pk, steady_words).run)
        for thread in threads
    ]

    def write_all() -> None:
        for writer in writers:
            writer.start()
        for writer in writers:
            writer.join(timeout=30)
            assert not writer.is_alive(), "an answer was still being written after 30 s"

    async def read(page: str) -> list[str]:
        texts = []
        while not (message := await layer.receive(page)).get("final"):
            texts += [line["data"] for line in message["lines"] if line["type"] == "text"]
        return texts

    async def push_and_read() -> list[list[str]]:
        # In one event loop, as in a web process: the layer's subscriptions are its loop's.
        pages = [await layer.new_channel() for _ in threads]
        for thread, page in zip(threads, pages, strict=True):
            await layer.group_add(group_for(thread.pk), page)
        await asyncio.to_thread(write_all)
        return [await read(page) for page in pages]

    return async_to_sync(push_and_read)()


def test_many_answers_at_once_go_out_in_fewer_frames_each_with_every_word(chat_worker, alice):
    [alone] = words_pushed([Thread.objects.create(owner=alice)])
    at_once = words_pushed([Thread.objects.create(owner=alice) for _ in range(30)])
    every_word = "".join(f"w{number} " for number in range(60))
    assert "".join(alone) == every_word
    assert all("".join(texts) == every_word for texts in at_once)
    # Alone a frame every 100 ms; a class's 30 answers at once share the process's 40 frames a
    # second (one every 0.75 s each), however slowly the machine runs them.
    assert len(alone) >= 8
    assert max(len(texts) for texts in at_once) <= len(alone) / 2
