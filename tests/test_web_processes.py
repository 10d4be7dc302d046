"""More than one web process (WEB_PROCESSES=2): daphnes sharing one port, each request and socket
taken by one of them, with Redis, a chat worker and a fake model server as `make run` starts
them. Which process holds a connection is read from the operating system (the process that has
the server end of the client's socket), not from anything the app says."""

import http.client
import json
import signal
import socket
import urllib.request
from collections.abc import Iterator

import psutil
import pytest
from redis import Redis

from apps.llm.tests.fake_ollama import FakeOllama
from tests.helpers.chat_classroom import ALICE, ASK, FINAL, SETUP, WORDS, Classroom, many_words
from tests.helpers.services import free_port, stop, wait_until
from tests.helpers.slowness import REPLY, scaled
from tests.wsclient import log_in

pytestmark = pytest.mark.services

ATTEMPTS = 64  # connections tried before giving up on reaching both processes (2 ** -63)


def web_processes(port: int) -> list[psutil.Process]:
    """The processes listening on `port`, once both have started."""
    found = {}

    def both_listen() -> bool:
        found.clear()
        for connection in psutil.net_connections("tcp"):
            listening = connection.status == psutil.CONN_LISTEN and connection.pid
            if listening and connection.laddr.port == port:
                found[connection.pid] = psutil.Process(connection.pid)
        return len(found) == 2

    wait_until(both_listen, timeout=90, what="two web processes")
    return list(found.values())


def served_by(client: socket.socket, processes: list[psutil.Process]) -> int:
    """The pid of the web process holding the server end of the client's connection."""
    address = client.getsockname()
    for process in processes:
        for connection in process.net_connections("tcp"):
            if connection.raddr and tuple(connection.raddr) == address:
                return process.pid
    raise AssertionError(f"no web process holds the connection from {address}")


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


@pytest.fixture(scope="module")
def classroom(start_app) -> Iterator[Classroom]:
    with FakeOllama(many_words) as model:
        model.delay = 0.01
        with start_app(model_url=model.url, setup=SETUP, web_processes=2) as app:
            room = Classroom(app, model)
            room.cookie = log_in(app.url, *ALICE)
            room.token = room.api(
                "POST", "/auth/token", dict(zip(("username", "password"), ALICE, strict=True))
            )["token"]
            try:
                yield room
            finally:
                for process in room.processes:
                    stop(process)


def test_requests_to_the_one_port_are_answered_by_both_web_processes(classroom):
    port = port_of(classroom.app.url)
    processes = web_processes(port)
    assert len({process.ppid() for process in processes}) == 1  # one launcher's children

    seen = set()
    for _ in range(ATTEMPTS):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=REPLY)
        connection.request("GET", "/api/v1/health")
        response = connection.getresponse()
        response.read()
        assert response.status == 200
        seen.add(served_by(connection.sock, processes))
        connection.close()
        if len(seen) == 2:
            break

    assert seen == {process.pid for process in processes}


def test_each_web_process_prepares_its_pages_once_it_listens(classroom):
    log = classroom.app.data_dir / "logs" / "web.log"  # both daphnes write to it
    wait_until(
        lambda: log.read_text().count("Web process ready for pages") == 2,
        timeout=60,
        what="both web processes' warm-up (cognivault_site/warmup.py)",
    )


def test_an_answer_asked_through_one_web_process_streams_to_a_socket_on_the_other(classroom):
    processes = web_processes(port_of(classroom.app.url))
    thread_id = classroom.new_thread()
    sockets = {}
    for _ in range(ATTEMPTS):
        candidate = classroom.socket(classroom.app.url, thread_id)
        pid = served_by(candidate.sock, processes)
        if pid in sockets:
            candidate.close()
        else:
            sockets[pid] = candidate
        if len(sockets) == 2:
            break
    assert len(sockets) == 2, "every socket landed on the same web process"
    here, there = sockets.values()

    here.send_json(ASK)
    frames = there.receive_until(FINAL, timeout=60)
    here.receive_until(FINAL, timeout=60)
    here.close()
    there.close()

    assert 'class="message assistant done"' in frames[-1] and f"word{WORDS - 1}" in frames[-1]
    answer = classroom.answer(thread_id)
    assert answer["status"] == "done"
    assert answer["content"] == "".join(f"word{i} " for i in range(WORDS))


def test_an_api_stream_that_ended_leaves_no_subscription_in_redis(classroom):
    """An API stream subscribes a channel of its own in its web process. Once the answer is in,
    the channel is let go, or a server that runs for a term would keep one per answer asked."""
    redis = Redis.from_url(classroom.app.env["REDIS_URL"])
    before = set(redis.pubsub_channels("*specific.*"))
    thread_id = classroom.new_thread()
    path = f"/chat/sessions/{thread_id}/messages"
    request = classroom.request("POST", path, {"content": "Talk a lot"}, classroom.token)
    with urllib.request.urlopen(request, timeout=REPLY) as response:
        lines = [json.loads(line) for line in response.read().splitlines()]

    text = "".join(line["data"] for line in lines if line["type"] == "text")
    assert text == "".join(f"word{i} " for i in range(WORDS))
    wait_until(
        lambda: set(redis.pubsub_channels("*specific.*")) <= before,
        timeout=10,
        what="the stream's channel unsubscribed",
    )


def test_sigterm_to_the_launcher_stops_every_web_process(classroom):
    port = free_port()
    launcher = classroom.start_web(port)
    processes = web_processes(port)

    launcher.send_signal(signal.SIGTERM)

    assert launcher.wait(timeout=scaled(60)) == 0
    assert not any(process.is_running() for process in processes)


def test_a_web_process_that_dies_stops_the_others_and_the_launcher_fails(classroom):
    port = free_port()
    launcher = classroom.start_web(port)
    dead, other = web_processes(port)

    dead.kill()

    assert launcher.wait(timeout=scaled(60)) == 1
    assert not other.is_running()
    log = (classroom.app.data_dir / "logs" / f"web-{port}.log").read_text()
    assert f"Web process {dead.pid} ended (-9): stopping the others." in log
