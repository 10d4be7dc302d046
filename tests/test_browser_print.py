"""A quiz and a deck printed from the browser, as a teacher hands them out on paper: the first
item on the first page (a long card no longer pushed whole to the next one), every item on
paper, and nothing there that is only for a screen (buttons, the forms that edit a card, the
links to other views and exports)."""

import httpx
import pymupdf
import pytest

from tests.helpers.browser import log_in
from tests.helpers.running_app import TEACHER
from tests.helpers.slowness import REPLY

pytestmark = [pytest.mark.browser, pytest.mark.services]

QUESTIONS = [
    f"In the experiment of week {n}, which part of the plant cell turns the light it takes in "
    f"into the sugar the plant stores and later burns for energy, variant {n}?"
    for n in range(1, 15)
]
GIFT = "\n\n".join(
    f"::Q{n}:: {text} {{=The chloroplast ~The vacuole ~The cell wall ~The nucleus}}"
    for n, text in enumerate(QUESTIONS, 1)
)
CARDS = [
    {"front": f"Term {n}: the organelle of step {n}", "back": f"What it does in step {n}."}
    for n in range(1, 31)
]
SCREEN_ONLY = [
    "Submit quiz",
    "one at a time",
    "Moodle XML",
    "Hand out",
    "Save",
    "Delete card",
    "Add a card",
    "Export CSV",
    "Rename or delete",
    "Study",
]


@pytest.fixture(scope="module")
def teacher_api(running_app):
    username, password = TEACHER
    with httpx.Client(base_url=running_app.url, timeout=REPLY) as client:
        reply = client.post("/api/v1/auth/token", json={"username": username, "password": password})
        client.headers["Authorization"] = f"Bearer {reply.json()['token']}"
        yield client


def printed(page) -> list[str]:
    """The text of each page of the A4 PDF Chromium prints of `page`."""
    page.emulate_media(media="print")
    pdf = pymupdf.open(stream=page.pdf(format="A4"), filetype="pdf")
    return [" ".join(pdf_page.get_text().split()) for pdf_page in pdf]


def screen_only_words(pages: list[str]) -> list[str]:
    return [words for words in SCREEN_ONLY if any(words in text for text in pages)]


def test_a_quiz_prints_from_its_first_question_on_the_first_page(browser, running_app, teacher_api):
    files = {"file": ("plants.gift", GIFT.encode(), "text/plain")}
    quiz = teacher_api.post("/api/v1/study/quizzes/import", files=files).json()
    page = log_in(browser, running_app, *TEACHER)
    page.goto(f"/study/quizzes/{quiz['id']}/?mode=all")
    assert page.get_by_role("button", name="Submit quiz").is_visible()

    pages = printed(page)

    assert len(pages) >= 2  # the quiz is longer than a page: it breaks between questions
    assert f"1. {QUESTIONS[0]}" in pages[0]
    assert all(any(question in text for text in pages) for question in QUESTIONS)
    assert screen_only_words(pages) == []
    page.context.close()


def test_a_deck_prints_its_cards_as_read_on_its_owners_page(browser, running_app, teacher_api):
    deck = teacher_api.post("/api/v1/study/decks", json={"title": "Organelles", "cards": CARDS})
    page = log_in(browser, running_app, *TEACHER)
    page.goto(f"/study/decks/{deck.json()['id']}/")
    assert page.get_by_label("Front").first.input_value() == CARDS[0]["front"]
    assert not page.locator(".card-row .print-only").first.is_visible()  # on screen: the form

    pages = printed(page)

    assert len(pages) >= 2
    assert CARDS[0]["front"] in pages[0] and CARDS[0]["back"] in pages[0]
    for card in CARDS:
        assert any(card["front"] in text and card["back"] in text for text in pages), card
    assert screen_only_words(pages) == []
    page.context.close()


# Each question's legend (its text) and how far it lies below its box's top border: negative when
# the border runs through the text.
LEGENDS_BELOW_BORDER = """() => [...document.querySelectorAll("fieldset.question")].map(box => {
  const legend = box.querySelector("legend");
  const top = box.getBoundingClientRect().top + parseFloat(getComputedStyle(box).borderTopWidth);
  return [legend.textContent.trim(), legend.getBoundingClientRect().top - top];
})"""

MARK_EXTRACTIVE = """
from apps.study.models import Question
Question.objects.filter(quiz_id={quiz}).update(extractive=True)
"""


def test_a_questions_text_sits_inside_its_box_and_its_from_the_text_tag_stays_off_paper(
    browser, running_app, teacher_api
):
    files = {"file": ("cells.gift", GIFT.encode(), "text/plain")}
    quiz = teacher_api.post("/api/v1/study/quizzes/import", files=files).json()
    running_app.manage("shell", "-c", MARK_EXTRACTIVE.format(quiz=quiz["id"]))
    page = log_in(browser, running_app, *TEACHER, viewport={"width": 390, "height": 844})
    page.goto(f"/study/quizzes/{quiz['id']}/?mode=all")
    assert page.get_by_text("from the text").first.is_visible()  # a screen keeps the tag

    for media in ["screen", "print"]:
        page.emulate_media(media=media)
        legends = page.evaluate(LEGENDS_BELOW_BORDER)
        assert len(legends) == len(QUESTIONS)
        assert [text for text, below in legends if below < 0] == [], media

    pages = printed(page)

    assert all(any(question in text for text in pages) for question in QUESTIONS)
    assert not any("from the text" in text for text in pages)
    page.context.close()
