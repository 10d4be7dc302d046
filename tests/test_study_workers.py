"""Study generation with the real parts: daphne, Redis and the chat worker serving the study
queue, a scripted fake model server on loopback. A quiz posted to the API is made by the
worker; a worker killed (`kill -9`) mid-generation leaves the quiz failed as interrupted, not
generating for ever, and a worker started again makes the next one."""

import json
import math
import os
import signal
import subprocess
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from apps.study.tests.helpers import StudyModel, questions
from tests.helpers.running_app import RunningApp, worker_command
from tests.helpers.services import celery_workers, wait_until
from tests.helpers.slowness import REPLY, scaled

pytestmark = pytest.mark.services

ALICE = ("alice", "alice-learns-2026")
SETUP = f"""
from apps.accounts.models import User
from apps.vault.models import Chunk, Document
alice = User.objects.create_user("{ALICE[0]}", password="{ALICE[1]}")
doc = Document.objects.create(owner=alice, filename="cells.txt", format="txt", sha256="0" * 64,
                              stored_name="1-cells.txt", status="done")
for i in range(4):
    Chunk.objects.create(document=doc, document_sha256=doc.sha256, ordinal=i, page=i + 1,
                         text=f"Part {{i}}: the mitochondrion is the powerhouse of the cell.")
"""
QUIZ = {"num_questions": 5, "difficulty": "beginner", "types": ["mcq", "true_false"]}


@dataclass
class Study:
    app: RunningApp
    model: StudyModel
    token: str = ""
    worker: subprocess.Popen | None = None

    def start_worker(self) -> None:
        port = int(self.app.env["PORT"])
        with open(self.app.data_dir / "logs" / "chat.log", "a") as out:
            self.worker = subprocess.Popen(
                worker_command("chat", port),
                cwd=Path(__file__).resolve().parent.parent,
                env=self.app.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # killed with all its threads
            )
        wait_until(
            lambda: any(
                name.startswith("chat-") for name in celery_workers(self.app.env["REDIS_URL"])
            ),
            timeout=90,
            what="the worker of the study queue",
        )

    def kill_worker(self) -> None:
        os.killpg(self.worker.pid, signal.SIGKILL)
        self.worker.wait()

    def api(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        request = urllib.request.Request(
            self.app.url + "/api/v1" + path,
            data=json.dumps(body).encode() if body is not None else None,
            method=method,
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.token}"},
        )
        with urllib.request.urlopen(request, timeout=REPLY) as response:
            return response.status, json.load(response)

    def quiz(self, quiz_id: int) -> dict:
        return self.api("GET", f"/study/quizzes/{quiz_id}")[1]

    def finished(self, quiz_id: int) -> dict:
        """The quiz once the worker is done with it (ready or failed)."""
        wait_until(lambda: self.quiz(quiz_id)["status"] != "generating", timeout=120, what="it")
        return self.quiz(quiz_id)


@pytest.fixture(scope="module")
def study(start_app) -> Iterator[Study]:
    with StudyModel() as model, pytest.MonkeyPatch.context() as patch:
        model.answer(json.dumps(questions(5)))
        # A worker silent this long is dead; a busy machine's live one beats less often.
        patch.setenv("STUDY_STALE_SECONDS", str(math.ceil(scaled(3))))
        with start_app(model_url=model.url, setup=SETUP, worker=False) as app:
            room = Study(app, model)
            credentials = dict(zip(("username", "password"), ALICE, strict=True))
            room.token = room.api("POST", "/auth/token", credentials)[1]["token"]
            try:
                room.start_worker()
                yield room
            finally:
                if room.worker is not None and room.worker.poll() is None:
                    os.killpg(room.worker.pid, signal.SIGTERM)
                    room.worker.wait(timeout=scaled(30))


def test_a_quiz_posted_to_the_api_is_made_by_the_worker(study):
    status, started = study.api("POST", "/study/quizzes", QUIZ)

    assert status == 202 and started["status"] == "generating"
    made = study.finished(started["id"])
    assert made["status"] == "ready" and made["error"] == ""
    assert len(made["questions"]) == 5 and made["backend"] == "ollama"


def test_a_worker_killed_mid_generation_leaves_the_quiz_interrupted_not_generating(study):
    asked = len(study.model.chats)
    with study.model.held():  # the worker waits on the model
        _, started = study.api("POST", "/study/quizzes", QUIZ)
        wait_until(lambda: len(study.model.chats) > asked, timeout=60, what="the model call")
        study.kill_worker()

        failed = study.finished(started["id"])
        assert failed["status"] == "failed" and failed["error"].startswith("Interrupted")
        assert failed["questions"] == []

    study.start_worker()
    _, again = study.api("POST", "/study/quizzes", QUIZ)
    assert study.finished(again["id"])["status"] == "ready"
    assert study.quiz(started["id"])["status"] == "failed"  # never made twice behind our back
