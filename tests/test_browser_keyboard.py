"""A student's first hour from the keyboard alone (Tab, Shift+Tab, Enter, Space, arrows and
typing; no mouse): ask a question in chat, take a quiz, review a flashcard. Each control is
reached by its accessible name and shows where the focus is; after each htmx or websocket
swap the focus is where the next key press is meant to go."""

import pytest
from playwright.sync_api import expect

from apps.chat.tests.model_script import EMBEDDING, chat_script
from apps.llm.tests.fake_ollama import FakeOllama
from tests.helpers.browser import log_in, tab_to

pytestmark = [pytest.mark.browser, pytest.mark.services]

STUDENT = ("alice", "alice-studies-2026")

# A cited passage for chat, a quiz of two questions and a deck of two cards, all alice's.
SETUP = f"""
import numpy as np
from django.utils import timezone
from apps.accounts.models import User
from apps.study.flashcards.decks import create_deck
from apps.study.models import Question, Quiz
from apps.vault.models import Chunk, Document
alice = User.objects.create_user("{STUDENT[0]}", password="{STUDENT[1]}")
document = Document.objects.create(owner=alice, filename="cells.pdf", format="pdf",
    sha256="0" * 64, stored_name="cells.pdf", status="done", pages=3)
Chunk.objects.create(document=document, document_sha256=document.sha256, ordinal=0, page=2,
    text="Mitochondria are the powerhouse of the cell: they make ATP from glucose.",
    embedding=np.array({EMBEDDING}, dtype=np.float32).tobytes(),
    embedding_model="ollama/embeddinggemma")
quiz = Quiz.objects.create(owner=alice, title="Cell biology", difficulty="beginner",
                           types=["mcq"], requested=2)
Question.objects.create(quiz=quiz, position=0, kind="mcq", text="Where is the DNA?",
                        options=["Ribosome", "Nucleus", "Membrane", "Vacuole"], correct_index=1)
Question.objects.create(quiz=quiz, position=1, kind="true_false", text="Do plants have cell walls?",
                        options=["True", "False"], correct_index=0)
create_deck(alice, "Organelles", [{{"front": "Mitochondrion", "back": "Powerhouse"}},
                                  {{"front": "Ribosome", "back": "Protein factory"}}],
            now=timezone.now())
"""


@pytest.fixture(scope="module")
def keyboard_app(start_app):
    with FakeOllama(chat_script) as model:
        model.delay = 0.03
        model.embedding = EMBEDDING
        with start_app(model_url=model.url, setup=SETUP, queues=("chat",)) as app:
            yield app


def test_a_student_asks_a_question_takes_a_quiz_and_reviews_a_card_from_the_keyboard(
    browser, keyboard_app
):
    page = log_in(browser, keyboard_app, *STUDENT)
    ask_a_question(page)
    take_a_quiz(page)
    review_the_cards(page)
    page.context.close()


def test_a_key_press_right_after_the_next_question_arrives_keeps_its_focus(browser, keyboard_app):
    """The next question takes the focus on its choice when it is swapped in, not a moment later:
    a student (or a busy browser, which handles key presses before timers) already on to the
    next control keeps the focus there."""
    page = log_in(browser, keyboard_app, *STUDENT)
    page.goto("/study/quizzes/")
    tab_to(page, page.get_by_role("link", name="Cell biology"))
    page.keyboard.press("Enter")
    page.get_by_text("Question 1 of 2").wait_for()
    # As a Tab press handled in the task after the swap: the focus moves to "Submit quiz".
    page.evaluate("""() => document.addEventListener("htmx:afterSwap", () => setTimeout(() =>
        document.querySelector("#quiz-player button.primary").focus()), {once: true})""")
    tab_to(page, page.get_by_role("radio", name="Ribosome"))
    page.keyboard.press("ArrowDown")
    tab_to(page, page.get_by_role("button", name="Next"))
    page.keyboard.press("Enter")
    page.get_by_text("Question 2 of 2 · 1 answered").wait_for()
    page.wait_for_timeout(200)
    expect(page.get_by_role("button", name="Submit quiz")).to_be_focused()
    page.context.close()


def ask_a_question(page) -> None:
    page.goto("/chat/")
    tab_to(page, page.get_by_role("button", name="New chat").first)
    page.keyboard.press("Enter")
    page.wait_for_url("**/chat/*/")
    question = page.get_by_label("Your question")
    tab_to(page, question)
    page.keyboard.type("What do mitochondria do?")
    page.keyboard.press("Enter")
    answer = page.locator(".message.assistant .answer")
    expect(answer).to_contain_text("Mitochondria make ATP")
    expect(page.locator(".message.assistant.done")).to_have_count(1)
    # The box was emptied by the server's swap and keeps the focus, ready for the next question.
    expect(question).to_have_value("")
    expect(question).to_be_focused()

    source = page.locator("details.source").first
    tab_to(page, source.locator("summary"), backwards=True)
    page.keyboard.press("Enter")
    expect(source.locator(".chunk")).to_contain_text("powerhouse of the cell")
    tab_to(page, page.get_by_role("link", name="Open cells.pdf at page 2"))


def take_a_quiz(page) -> None:
    page.goto("/study/quizzes/")
    tab_to(page, page.get_by_role("link", name="Cell biology"))
    page.keyboard.press("Enter")
    page.get_by_text("Question 1 of 2").wait_for()
    # Into the radio group, then the arrow key moves to the next option and chooses it.
    tab_to(page, page.get_by_role("radio", name="Ribosome"))
    page.keyboard.press("ArrowDown")
    expect(page.get_by_role("radio", name="Nucleus")).to_be_checked()
    tab_to(page, page.get_by_role("button", name="Next"))
    page.keyboard.press("Enter")

    # The next question replaces the first: the focus goes to its choices, not the page's top.
    page.get_by_text("Question 2 of 2 · 1 answered").wait_for()
    first = page.get_by_role("radio", name="True")
    expect(first).to_be_focused()
    page.keyboard.press("Space")
    expect(first).to_be_checked()
    tab_to(page, page.get_by_role("button", name="Submit quiz"))
    page.keyboard.press("Space")
    page.get_by_text("2 of 2 correct (100 %)").wait_for()


def review_the_cards(page) -> None:
    page.goto("/study/decks/")
    tab_to(page, page.get_by_role("link", name="Study", exact=True))
    page.keyboard.press("Enter")
    card = page.locator("#study-card .flashcard")
    tab_to(page, page.get_by_role("button", name="Mitochondrion"))
    page.keyboard.press("Space")
    expect(card).to_have_attribute("aria-pressed", "true")
    expect(card.locator(".flashcard-back")).to_have_attribute("aria-hidden", "false")
    # Space on a focused answer button presses that button (it does not turn the card back).
    tab_to(page, page.get_by_role("button", name="Got it"))
    page.keyboard.press("Space")
    expect(page.locator("#study-card")).to_contain_text("1 of 2 mastered")

    # The next card has the focus: Enter turns it, and the answer buttons follow it.
    next_card = page.get_by_role("button", name="Ribosome")
    expect(next_card).to_be_focused()
    page.keyboard.press("Enter")
    expect(card).to_have_attribute("aria-pressed", "true")
    tab_to(page, page.get_by_role("button", name="Got it"))
    page.keyboard.press("Enter")
    caught_up = page.get_by_role("heading", name="All caught up")
    # The last answer leaves no card: the focus goes to what replaced it, not to the page.
    expect(caught_up).to_be_focused()
