"""Chat in a real browser: daphne relaying what the chat worker writes, the model a fake server
on loopback."""

import dataclasses
import signal

import pytest
from PIL import Image
from playwright.sync_api import expect

from apps.chat.tests.model_script import EMBEDDING, chat_script
from apps.llm.tests.fake_ollama import FakeOllama, part
from tests.helpers.browser import log_in
from tests.helpers.running_app import another_web_server
from tests.helpers.services import free_port, stop
from tests.helpers.slowness import scaled_ms

pytestmark = [pytest.mark.browser, pytest.mark.services]

SETUP = f"""
import numpy as np
from apps.accounts.models import User
from apps.vault.models import Chunk, Document
alice = User.objects.create_user("alice", password="alice-studies-2026")
document = Document.objects.create(owner=alice, filename="cells.pdf", format="pdf",
    sha256="0" * 64, stored_name="cells.pdf", status="done", pages=3)
Chunk.objects.create(document=document, document_sha256=document.sha256, ordinal=0, page=2,
    text="Mitochondria are the powerhouse of the cell: they make ATP from glucose. "
         "See https://cells.example.org/organelles/mitochondria/adenosine-triphosphate-synthase.",
    embedding=np.array({EMBEDDING}, dtype=np.float32).tobytes(),
    embedding_model="ollama/embeddinggemma")
"""


@pytest.fixture(scope="module")
def chat_model():
    """The fake model server, with the chat's script."""
    with FakeOllama(chat_script) as model:
        model.delay = 0.03
        model.embedding = EMBEDDING
        yield model


@pytest.fixture(scope="module")
def chat_app(start_app, chat_model):
    """daphne and the workers, pointed at the fake model server."""
    with start_app(model_url=chat_model.url, setup=SETUP) as app:
        yield app


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
    expect(thinking).to_contain_text("The question is about cells.")
    answer = page.locator(".message.assistant.done .answer")
    expect(answer).to_contain_text("Mitochondria make ATP")

    source = page.locator("details.source").first
    assert "cells.pdf, page 2" in source.locator("summary").inner_text()
    assert not source.locator(".chunk").is_visible()
    source.locator("summary").click()
    assert "powerhouse of the cell" in source.locator(".chunk").inner_text()
    # The thread is named after its first question, in the sidebar.
    assert "What do mitochondria do?" in page.locator("#thread-list").inner_text()
    page.context.close()


def test_an_answered_chat_fits_a_phone_and_its_source_opens_at_the_passage(browser, chat_app):
    page = log_in(
        browser, chat_app, "alice", "alice-studies-2026", viewport={"width": 390, "height": 844}
    )
    page.goto("/chat/")
    page.get_by_role("button", name="New chat").first.click()
    page.wait_for_url("**/chat/*/")
    page.get_by_label("Your question").fill("What do mitochondria do?")
    page.get_by_role("button", name="Send").click()
    expect(page.locator(".message.assistant.done .answer")).to_contain_text("Mitochondria make ATP")
    page.locator("details.source summary").first.click()
    # Nothing sticks out sideways: the page itself never scrolls horizontally.
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
    # On connecting, the socket's first frame redraws the conversation, which would close a
    # source opened before it: open one only once that frame is in.
    page.add_init_script(
        "document.addEventListener('htmx:wsAfterMessage', () => { window.framesIn = true; })"
    )
    page.reload()
    page.wait_for_function("() => window.framesIn === true")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390

    page.locator("details.source summary").first.click()
    page.get_by_role("link", name="Open cells.pdf at page 2").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("cells.pdf")  # the reader
    cited = page.locator(".reader-cited")
    expect(cited.locator("summary")).to_contain_text("on page 2")
    cited.locator("summary").click()
    expect(cited.locator("blockquote")).to_contain_text("powerhouse of the cell")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 390  # its address too
    page.context.close()


def test_follow_up_questions_keep_their_scope_go_below_and_only_the_last_answer_can_be_redone(
    browser, chat_app
):
    page = log_in(browser, chat_app, "alice", "alice-studies-2026")
    page.goto("/chat/")
    page.get_by_role("button", name="New chat").first.click()
    page.wait_for_url("**/chat/*/")
    page.get_by_text("Scope: the whole vault").click()
    page.get_by_label("Files").select_option(label="cells.pdf")
    for answered, question in enumerate(("What do mitochondria do?", "And what is ATP for?"), 1):
        page.get_by_label("Your question").fill(question)
        page.get_by_role("button", name="Send").click()
        done = page.locator(".message.assistant.done")
        expect(done).to_have_count(answered)
        # The question box is empty for the next question; the file chosen stays chosen.
        expect(page.get_by_label("Your question")).to_have_value("")
        expect(page.locator("#composer option:checked")).to_have_text(["cells.pdf"])

    bubbles = page.locator(".message.user .bubble")
    expect(bubbles).to_have_count(2)
    assert bubbles.all_inner_texts() == ["What do mitochondria do?", "And what is ATP for?"]
    expect(page.locator(".message.user .badge")).to_have_text(["Scope: cells.pdf"] * 2)
    expect(page.locator(".message.assistant.done")).to_have_count(2)
    expect(page.get_by_role("button", name="Regenerate")).to_have_count(1)
    assert page.locator(".message").last.get_by_role("button", name="Regenerate").is_visible()
    page.context.close()


def test_an_idle_chat_page_keeps_its_socket_through_the_real_channel_layer(browser, chat_app):
    """The channel layer's blocking receive must outlast Redis's socket timeout: an idle page
    keeps one socket (no close, no reconnect) and a question after the pause is answered."""
    page = log_in(browser, chat_app, "alice", "alice-studies-2026")
    opened, closed = [], []

    def watch(socket):
        opened.append(socket.url)
        socket.on("close", lambda _: closed.append(socket.url))

    page.on("websocket", watch)
    page.goto("/chat/")
    page.get_by_role("button", name="New chat").first.click()
    page.wait_for_url("**/chat/*/")
    thread_socket = page.url.replace("http://", "ws://").replace("/chat/", "/ws/chat/")
    page.wait_for_timeout(30_000)

    assert opened.count(thread_socket) == 1
    assert thread_socket not in closed
    page.get_by_label("Your question").fill("What do mitochondria do?")
    page.get_by_role("button", name="Send").click()
    expect(page.locator(".message.assistant.done .answer")).to_contain_text("Mitochondria make ATP")
    assert opened.count(thread_socket) == 1
    page.context.close()


def test_a_page_whose_web_server_is_killed_mid_answer_shows_the_answer_continuing(
    browser, chat_app, chat_model
):
    """The answer is the chat worker's: `kill -9` of the web server that took the question
    loses nothing, and once it is back the page (reconnecting by itself) shows the rest."""
    chat_model.script = lambda body: (
        [] if body.get("think") else [part(f"word{i} ") for i in range(300)]
    )
    port = free_port()
    web = another_web_server(chat_app, port)
    try:
        app = dataclasses.replace(chat_app, url=f"http://127.0.0.1:{port}")
        page = log_in(browser, app, "alice", "alice-studies-2026")
        page.goto("/chat/")
        page.get_by_role("button", name="New chat").first.click()
        page.wait_for_url("**/chat/*/")
        page.get_by_label("Your question").fill("Talk a lot")
        page.get_by_role("button", name="Send").click()
        streaming = page.locator(".message.assistant.streaming .answer")
        expect(streaming).to_contain_text("word20")
        web.send_signal(signal.SIGKILL)
        web.wait()

        web = another_web_server(chat_app, port)
        answer = page.locator(".message.assistant.done .answer")
        expect(answer).to_contain_text("word299", timeout=scaled_ms(60))
        text = answer.inner_text()
        assert all(f"word{i} " in text + " " for i in range(300))
        page.context.close()
    finally:
        chat_model.script = chat_script
        stop(web)


def test_an_attached_image_goes_with_the_next_question_and_the_picker_is_ready_again(
    browser, chat_app, tmp_path
):
    image = tmp_path / "cell.png"
    Image.new("RGB", (8, 8), "green").save(image)
    page = log_in(browser, chat_app, "alice", "alice-studies-2026")
    page.goto("/chat/")
    page.get_by_role("button", name="New chat").first.click()
    page.wait_for_url("**/chat/*/")
    picker = page.get_by_label("Attach images, PDF or DOCX (up to 5)")
    picker.set_input_files(image)

    expect(page.locator("#attachment-list")).to_contain_text("cell.png")
    expect(picker).to_have_value("")  # emptied: the same file can be picked again
    expect(page.locator("#attachment-list")).not_to_contain_text("reading")
    page.get_by_label("Your question").fill("What does this picture show?")
    page.get_by_role("button", name="Send").click()
    expect(page.locator(".message.assistant.done")).to_have_count(1)
    expect(page.locator(".message.user .chip")).to_have_text(["cell.png"])
    expect(page.locator("#attachment-list")).to_be_empty()
    page.context.close()


def test_an_attachment_that_cannot_be_read_says_why_and_its_note_can_be_dismissed(
    browser, chat_app, tmp_path
):
    damaged = tmp_path / "lecture.pdf"
    damaged.write_bytes(b"%PDF-1.4 and then nothing a reader can use")
    page = log_in(browser, chat_app, "alice", "alice-studies-2026")
    page.goto("/chat/")
    page.get_by_role("button", name="New chat").first.click()
    page.wait_for_url("**/chat/*/")
    page.get_by_label("Your question").fill("Kept while I attach")
    page.get_by_label("Attach images, PDF or DOCX (up to 5)").set_input_files(damaged)

    refusal = page.locator("#attachment-list [role=alert]")
    expect(refusal).to_contain_text("lecture.pdf: The PDF is damaged")
    page.get_by_role("button", name="Dismiss").click()
    expect(page.locator("#attachment-list")).to_be_empty()
    expect(page.get_by_label("Your question")).to_have_value("Kept while I attach")
    page.context.close()


def composer_share(page) -> float:
    """How much of the window's height the pinned composer takes."""
    return page.evaluate(
        "document.getElementById('composer').getBoundingClientRect().height / innerHeight"
    )


@pytest.mark.parametrize("viewport", [(390, 844), (1280, 800)])
def test_the_composer_is_a_few_lines_high_and_its_folded_scope_and_attachments_still_work(
    browser, chat_app, tmp_path, viewport
):
    image = tmp_path / "cell.png"
    Image.new("RGB", (8, 8), "green").save(image)
    width, height = viewport
    page = log_in(
        browser,
        chat_app,
        "alice",
        "alice-studies-2026",
        viewport={"width": width, "height": height},
    )
    page.goto("/chat/")
    page.get_by_role("button", name="New chat").first.click()
    page.wait_for_url("**/chat/*/")
    page.get_by_label("Your question").wait_for()
    assert composer_share(page) <= 0.2

    scope = page.locator("#composer summary")
    expect(scope).to_contain_text("Scope: the whole vault")
    scope.click()
    page.get_by_label("Files").select_option(label="cells.pdf")
    page.get_by_label("Attach images, PDF or DOCX (up to 5)").set_input_files(image)
    expect(page.locator("#attachment-list")).to_contain_text("cell.png")
    expect(page.locator("#attachment-list")).not_to_contain_text("reading")
    scope.click()  # folded again: what was chosen still shows
    expect(scope).to_contain_text("Scope: cells.pdf")
    assert page.locator("#attachment-list").is_visible()
    assert composer_share(page) <= 0.25  # one line more: the attachment's chip

    page.get_by_label("Your question").fill("What does this picture show?")
    page.get_by_role("button", name="Send").click()
    expect(page.locator(".message.assistant.done")).to_have_count(1)
    expect(page.locator(".message.user .badge")).to_have_text(["Scope: cells.pdf"])
    expect(page.locator(".message.user .chip")).to_have_text(["cell.png"])
    assert page.evaluate("document.scrollingElement.scrollWidth") <= width
    page.context.close()
