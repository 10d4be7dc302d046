"""A class's chat on the real parts: the students, the question they ask, a fake model that
talks a lot, and the `Classroom` that drives web processes, a chat worker, the API and sockets
(tests/test_chat_workers.py, tests/test_web_processes.py)."""

import json
import os
import signal
import subprocess
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from apps.llm.tests.fake_ollama import FakeOllama, part
from tests.helpers.running_app import RunningApp, another_web_server, worker_command
from tests.helpers.services import celery_workers, wait_until
from tests.helpers.slowness import REPLY
from tests.wsclient import WebSocket

WORDS = 300
ALICE = ("alice", "alice-studies-2026")
BOB = ("bob", "bob-studies-2026")
CAROL = ("carol", "carol-floods-2026")
SETUP = f"""
from apps.accounts.models import User
for name, password in [{ALICE!r}, {BOB!r}, {CAROL!r}]:
    User.objects.create_user(name, password=password)
"""
FINAL = r'class="message assistant (done|stopped|failed)" hx-swap-oob'
ASK = json.dumps({"action": "ask", "content": "Talk a lot"})


def many_words(body: dict) -> list[dict]:
    return [] if body.get("think") else [part(f"word{i} ") for i in range(WORDS)]


@dataclass
class Classroom:
    app: RunningApp
    model: FakeOllama
    cookie: str = ""
    token: str = ""
    processes: list[subprocess.Popen] = field(default_factory=list)
    chat_worker: subprocess.Popen | None = None

    def start_web(self, port: int) -> subprocess.Popen:
        process = another_web_server(self.app, port)
        self.processes.append(process)
        return process

    def start_chat_worker(self) -> None:
        port = int(self.app.env["PORT"])
        log = self.app.data_dir / "logs" / "chat.log"
        with open(log, "a") as out:  # a session of its own: killed with all its threads
            self.chat_worker = subprocess.Popen(
                worker_command("chat", port),
                cwd=Path(__file__).resolve().parents[2],
                env=self.app.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        redis_url = self.app.env["REDIS_URL"]
        wait_until(
            lambda: any(name.startswith("chat-") for name in celery_workers(redis_url)),
            timeout=90,
            what="the chat worker",
        )

    def kill_chat_worker(self) -> None:
        os.killpg(self.chat_worker.pid, signal.SIGKILL)
        self.chat_worker.wait()

    def request(self, method: str, path: str, body: dict | None, token: str):
        return urllib.request.Request(
            self.app.url + "/api/v1" + path,
            data=json.dumps(body).encode() if body is not None else None,
            method=method,
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        )

    def api(self, method: str, path: str, body: dict | None = None, token: str = "") -> dict:
        request = self.request(method, path, body, token or self.token)
        with urllib.request.urlopen(request, timeout=REPLY) as response:
            return json.load(response) if response.status != 204 else {}

    def token_for(self, username: str, password: str) -> str:
        login = {"username": username, "password": password}
        return self.api("POST", "/auth/token", login)["token"]

    def new_thread(self, token: str = "") -> int:
        return self.api("POST", "/chat/sessions", {"title": "Workers"}, token)["id"]

    def answer(self, thread_id: int, token: str = "") -> dict:
        return self.api("GET", f"/chat/sessions/{thread_id}", token=token)["messages"][-1]

    def ask(self, thread_id: int, token: str) -> tuple[int, str]:
        """Ask through the NDJSON API; the status and Retry-After (the answer is written
        whether or not its stream is read)."""
        path = f"/chat/sessions/{thread_id}/messages"
        request = self.request("POST", path, {"content": "Talk a lot"}, token)
        try:
            with urllib.request.urlopen(request, timeout=REPLY) as response:
                return response.status, ""
        except urllib.error.HTTPError as refused:
            return refused.code, refused.headers.get("Retry-After", "")

    def socket(self, url: str, thread_id: int) -> WebSocket:
        socket = WebSocket(url, f"/ws/chat/{thread_id}/", self.cookie)
        socket.receive()  # the conversation as it is
        return socket
