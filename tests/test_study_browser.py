"""A person generates a quiz in the browser and plays it through, against daphne with the
model server replaced by a scripted fake on loopback."""

import json

import pytest

from apps.study.tests.helpers import StudyModel, questions
from tests.helpers.browser import log_in
from tests.helpers.slowness import scaled_ms

pytestmark = [pytest.mark.browser, pytest.mark.services]

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
def model():
    with StudyModel() as model:
        model.answer(json.dumps(questions(5)))
        yield model


@pytest.fixture(scope="module")
def study_app(start_app, model):
    with start_app(model_url=model.url, setup=SETUP) as app:
        yield app


def test_a_student_generates_a_quiz_and_plays_it_one_question_at_a_time(browser, study_app, model):
    page = log_in(browser, study_app, "alice", "alice-learns-2026")
    page.goto("/study/quizzes/")
    page.get_by_label("Questions").select_option("5")
    with model.held():  # until the card has been seen
        page.get_by_role("button", name="Generate quiz").click()
        page.wait_for_url("**/study/quizzes/*/")
        # The form answers at once with a card saying what is being made...
        page.get_by_text("Making a quiz of 5 questions from your vault").wait_for()
    # ...and once the worker has made it, the quiz replaces the card.
    page.get_by_text("Question 1 of 5").wait_for(timeout=scaled_ms(90))
    assert page.locator("#generation-card").count() == 0

    # questions(5): multiple choice and true/false in turn. The options were shuffled when the
    # quiz was made, so answer by their text: rightly, but the third question wrong.
    for number, option in enumerate(["Mitochondrion", "True", "Nucleus", "True"], start=1):
        page.get_by_text(f"Question {number} of 5").wait_for()
        page.get_by_label(option, exact=True).check()
        page.get_by_role("button", name="Next").click()
    page.get_by_text("Question 5 of 5").wait_for()
    page.reload()  # an unfinished quiz resumes where it was, answers kept
    page.get_by_text("Question 5 of 5 · 4 answered").wait_for()
    page.get_by_label("Mitochondrion", exact=True).check()
    page.get_by_role("button", name="Submit quiz").click()

    page.get_by_text("4 of 5 correct (80 %)").wait_for()
    assert page.get_by_text("✗ your answer").count() == 1
    assert page.get_by_role("link", name="Open source: cells.txt").count() >= 1
    page.context.close()
