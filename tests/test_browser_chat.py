"""Chat in a real browser: daphne talking to a fake model server over loopback."""

import os
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.conftest import RunningApp, free_port, log_in, spawn, stop, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.services]

SETUP = """
import numpy as np
from apps.accounts.models import User
from apps.vault.models import Chunk, Document
alice = User.objects.create_user("alice", password="alice-studies-2026")
document = Document.objects.create(owner=alice, filename="cells.pdf", format="pdf",
    sha256="0" * 64, stored_name="cells.pdf", status="done", pages=3)
Chunk.objects.create(document=document, document_sha256=document.sha256, ordinal=0, page=2,
    text="Mitochondria are the powerhouse of the cell: they make ATP from glucose.",
    embedding=np.array([1.0, 0.0, 0.0], dtype=np.float32).tobytes(),
    embedding_model="ollama/embeddinggemma")
"""


@pytest.fixture(scope="module")
def chat_app(redis_url, tmp_path_factory):
    """daphne pointed at the scripted model server (no worker: chat needs none)."""
    from apps.chat.tests.fake_model import FakeModel

    model = FakeModel().start()
    model.delay = 0.03
    data_dir = tmp_path_factory.mktemp("chat-data")
    port = free_port()
    env = {
        **os.environ,
        "DATA_DIR": str(data_dir),
        "REDIS_URL": redis_url,
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
    daphne = [
        Path(sys.executable).parent / "daphne",
        "-b",
        "127.0.0.1",
        "-p",
        str(port),
        "cognivault_site.asgi:application",
    ]
    process = spawn(daphne, env, data_dir / "web.log")
    try:
        wait_until(lambda: app.get_json("/api/v1/health"), timeout=60, what="daphne")
        yield app
    finally:
        stop(process)
        model.stop()


def test_a_student_asks_and_sees_thinking_a_streamed_answer_and_an_expandable_source(
    browser, chat_app
):
    page = log_in(browser, chat_app, "alice", "alice-studies-2026")
    page.goto("/chat/")
    page.get_by_role("button", name="New chat").first.click()
    page.wait_for_url("**/chat/*/")
    page.get_by_label("Your question").fill("What do mitochondria do?")
    page.get_by_role("button", name="Send").click()

    thinking = page.locator("details.thinking").first
    thinking.locator("summary").click()
    expect(thinking).to_contain_text("The question is about cells.", timeout=15_000)
    answer = page.locator(".message.assistant.done .answer")
    expect(answer).to_contain_text("Mitochondria make ATP", timeout=15_000)

    source = page.locator("details.source").first
    assert "cells.pdf, page 2" in source.locator("summary").inner_text()
    assert not source.locator(".chunk").is_visible()
    source.locator("summary").click()
    assert "powerhouse of the cell" in source.locator(".chunk").inner_text()
    # The thread is named after its first question, in the sidebar.
    assert "What do mitochondria do?" in page.locator("#thread-list").inner_text()
    page.context.close()
