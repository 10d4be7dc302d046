"""Chat answers with the real parts: two daphne processes and a chat worker behind one Redis, a
fake model server streaming slowly on loopback. Asked in one web process and stopped from the
other; a web server killed (`kill -9`) mid-answer and started again; a chat worker killed
mid-answer. One student's flood of questions refused past their fair share while another's
answer is written at once."""

import json
import math
import os
import re
import signal
from collections.abc import Iterator

import pytest

from apps.llm.tests.fake_ollama import FakeOllama
from tests.helpers.chat_classroom import (
    ALICE,
    ASK,
    BOB,
    CAROL,
    FINAL,
    SETUP,
    WORDS,
    Classroom,
    many_words,
)
from tests.helpers.services import free_port, stop
from tests.helpers.slowness import scaled
from tests.wsclient import WebSocket, log_in

pytestmark = pytest.mark.services


@pytest.fixture(scope="module")
def classroom(start_app) -> Iterator[Classroom]:
    with FakeOllama(many_words) as model, pytest.MonkeyPatch.context() as patch:
        model.delay = 0.05
        # A worker silent this long is dead; a busy machine's live one beats less often.
        patch.setenv("CHAT_STALE_SECONDS", str(math.ceil(scaled(5))))
        patch.setenv("CHAT_ANSWERS_IN_PROGRESS", "2")
        with start_app(model_url=model.url, setup=SETUP, worker=False) as app:
            room = Classroom(app, model)
            room.cookie = log_in(app.url, *ALICE)
            room.token = room.token_for(*ALICE)
            try:
                room.start_chat_worker()
                yield room
            finally:
                for process in room.processes:
                    stop(process)
                if room.chat_worker is not None and room.chat_worker.poll() is None:
                    os.killpg(room.chat_worker.pid, signal.SIGTERM)
                    room.chat_worker.wait(timeout=scaled(30))


def test_an_answer_asked_in_one_web_process_is_stopped_from_another(classroom):
    port = free_port()
    classroom.start_web(port)
    thread_id = classroom.new_thread()
    here = classroom.socket(classroom.app.url, thread_id)
    there = classroom.socket(f"http://127.0.0.1:{port}", thread_id)

    here.send_json(ASK)
    there.receive_until(r"word3 ")  # the other process relays the same answer
    there.send_json(json.dumps({"action": "stop"}))
    frames = here.receive_until(FINAL)
    here.close()
    there.close()

    assert 'class="message assistant stopped"' in frames[-1]
    answer = classroom.answer(thread_id)
    assert answer["status"] == "stopped"
    assert answer["content"].startswith("word0 word1 word2 word3")
    assert f"word{WORDS - 1} " not in answer["content"]


def test_a_web_server_killed_mid_answer_and_started_again_shows_the_answer_continuing(classroom):
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    web = classroom.start_web(port)
    thread_id = classroom.new_thread()
    socket = classroom.socket(url, thread_id)
    socket.send_json(ASK)
    socket.receive_until(r"word10 ")
    # The model slows down while no web server runs, so the answer is still being written when
    # one is back, however long a busy machine takes to start it.
    classroom.model.delay = 1.0
    web.send_signal(signal.SIGKILL)
    web.wait()

    classroom.start_web(port)
    again = WebSocket(url, f"/ws/chat/{thread_id}/", classroom.cookie)
    shown = again.receive()
    classroom.model.delay = 0.05
    frames = again.receive_until(FINAL, timeout=60)
    again.close()

    # Still being written, with what was written while no web server ran.
    assert 'class="message assistant streaming"' in shown
    assert max(int(n) for n in re.findall(r"word(\d+) ", shown)) > 10
    everything = "".join(f"word{i} " for i in range(WORDS))
    assert 'class="message assistant done"' in frames[-1] and f"word{WORDS - 1}" in frames[-1]
    answer = classroom.answer(thread_id)
    assert answer["status"] == "done" and answer["content"] == everything


def test_a_worker_killed_mid_answer_leaves_it_interrupted_and_it_can_be_regenerated(classroom):
    thread_id = classroom.new_thread()
    socket = classroom.socket(classroom.app.url, thread_id)
    socket.send_json(ASK)
    socket.receive_until(r"word30 ")  # the partial answer has been saved (every 0.5 s)
    classroom.kill_chat_worker()

    # The open page learns it from its socket within the stale time, no reload needed.
    frames = socket.receive_until(FINAL, timeout=30)
    assert 'class="message assistant failed"' in frames[-1]
    assert "Interrupted" in frames[-1] and "Regenerate" in frames[-1]
    answer = classroom.answer(thread_id)
    assert answer["status"] == "failed" and answer["error"].startswith("Interrupted")
    assert answer["content"].startswith("word0 word1")  # what was written is kept

    classroom.model.delay = 0.002
    classroom.start_chat_worker()
    socket.send_json(json.dumps({"action": "regenerate"}))
    frames = socket.receive_until(FINAL, timeout=60)
    socket.close()
    assert 'class="message assistant done"' in frames[-1]
    assert classroom.answer(thread_id)["status"] == "done"


def test_one_students_flood_is_refused_and_another_students_answer_does_not_wait(classroom):
    # An answer takes about 15 s on an idle machine: the flood's outlive the test.
    classroom.model.delay = scaled(0.05)
    carol, bob = classroom.token_for(*CAROL), classroom.token_for(*BOB)
    flood = [classroom.new_thread(carol) for _ in range(6)]

    replies = [classroom.ask(thread_id, carol) for thread_id in flood]

    assert [status for status, _ in replies] == [200, 200, 429, 429, 429, 429]
    assert all(wait.isdigit() for _, wait in replies[2:])
    # Four chat worker threads, two of them carol's: bob's answer starts at once, while
    # carol's are still being written, instead of waiting behind her six.
    thread_id = classroom.new_thread(bob)
    socket = WebSocket(classroom.app.url, f"/ws/chat/{thread_id}/", log_in(classroom.app.url, *BOB))
    socket.receive()
    socket.send_json(ASK)
    socket.receive_until(r"word3 ")
    assert [classroom.answer(t, carol)["status"] for t in flood[:2]] == ["streaming"] * 2
    frames = socket.receive_until(FINAL, timeout=60)
    socket.close()
    assert 'class="message assistant done"' in frames[-1]
    assert [
        len(classroom.api("GET", f"/chat/sessions/{t}", token=carol)["messages"]) for t in flood
    ] == [2, 2, 0, 0, 0, 0]
