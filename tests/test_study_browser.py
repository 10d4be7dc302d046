"""A person generates a quiz in the browser and plays it through, against daphne with the
model server replaced by a scripted fake on loopback."""

import json
import sys
from pathlib import Path

import pytest

from apps.study.tests.conftest import StudyModel, questions
from tests.conftest import RunningApp, free_port, log_in, spawn, stop, wait_until

pytestmark = pytest.mark.browser

SETUP = """
from apps.accounts.models import User
from apps.vault.models import Chunk, Document
alice = User.objects.create_user("alice", password="alice-learns-2026")
doc = Document.objects.create(owner=alice, filename="cells.txt", format="txt", sha256="0" * 64,
                              stored_name="1-cells.txt", status="done")
for i in range(4):
    Chunk.objects.create(document=doc, document_sha256=doc.sha256, ordinal=i, page=i + 1,
                         text=f"Part {i}: the mitochondrion is the powerhouse of the cell.")
"""


@pytest.fixture(scope="module")
def study_app(tmp_path_factory):
    model = StudyModel().start()
    model.answer(json.dumps(questions(5)))
    data_dir = tmp_path_factory.mktemp("study-data")
    port = free_port()
    env = {
        **__import__("os").environ,
        "DATA_DIR": str(data_dir),
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "OLLAMA_HOST": model.url,
        "LLM_BACKEND": "ollama",
        "EMBEDDING_BACKEND": "ollama",
        "DJANGO_SETTINGS_MODULE": "cognivault_site.settings",
    }
    app = RunningApp(f"http://127.0.0.1:{port}", env, data_dir)
    app.manage("migrate", "--noinput")
    app.manage("shell", "-c", SETUP)
    daphne = Path(sys.executable).parent / "daphne"
    process = spawn(
        [daphne, "-b", "127.0.0.1", "-p", str(port), "cognivault_site.asgi:application"],
        env,
        data_dir / "web.log",
    )
    try:
        wait_until(lambda: app.get_json("/api/v1/health"), timeout=60, what="daphne")
        yield app
    finally:
        stop(process)
        model.stop()


def test_a_student_generates_a_quiz_and_plays_it_one_question_at_a_time(browser, study_app):
    page = log_in(browser, study_app, "alice", "alice-learns-2026")
    page.goto("/study/quizzes/")
    page.get_by_label("Questions").select_option("5")
    page.get_by_role("button", name="Generate quiz").click()
    page.wait_for_url("**/study/quizzes/*/")

    # questions(5): correct answers are options 1, 0, 1, 0, 1; answer the third one wrong.
    for number, choice in enumerate([1, 0, 0, 0], start=1):
        page.get_by_text(f"Question {number} of 5").wait_for()
        page.locator("input[name=choice]").nth(choice).check()
        page.get_by_role("button", name="Next").click()
    page.get_by_text("Question 5 of 5").wait_for()
    page.reload()  # an unfinished quiz resumes where it was, answers kept
    page.get_by_text("Question 5 of 5 · 4 answered").wait_for()
    page.locator("input[name=choice]").nth(1).check()
    page.get_by_role("button", name="Submit quiz").click()

    page.get_by_text("4 of 5 correct (80 %)").wait_for()
    assert page.get_by_text("✗ your answer").count() == 1
    assert page.get_by_role("link", name="Open source: cells.txt").count() >= 1
    page.context.close()
