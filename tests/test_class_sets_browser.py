"""Class sets in real browsers: the teacher hands out a quiz and a deck, two students study
them in their own browser contexts and answer differently, and the teacher's results show
each student's own figures and the question the class misses most. A quiz the teacher
generates for the class reaches the students only once the worker has made it."""

import json
import re

import pytest

from apps.study.tests.helpers import StudyModel, questions
from tests.helpers.browser import log_in
from tests.helpers.running_app import TEACHER, class_document_seed
from tests.helpers.slowness import scaled_ms

pytestmark = [pytest.mark.browser, pytest.mark.services]

PASSWORD = "learns-in-class-2026"
SETUP = f"""
from django.utils import timezone
from apps.accounts.models import User
from apps.classes.models import Enrolment, SchoolClass
from apps.study.flashcards.decks import create_deck
from apps.study.models import Question, Quiz
tess = User.objects.get(username="tess")
students = [User.objects.create_user(name, password="{PASSWORD}") for name in ("alice", "bob")]
SchoolClass.objects.create_for(tess, "7b").enrol(students, Enrolment.Role.STUDENT)
{class_document_seed("biologie.txt", 3)}
quiz = Quiz.objects.create(owner=tess, title="Zellbiologie", difficulty="beginner",
                           types=["mcq"], requested=3)
for i, (text, options, correct) in enumerate([
    ("Was ist das Kraftwerk der Zelle?", ["Kern", "Mitochondrium", "Ribosom", "Vakuole"], 1),
    ("Haben Pflanzen Zellwände?", ["Ja", "Nein"], 0),
    ("Wo liegt die DNA?", ["Ribosom", "Kern", "Membran", "Vakuole"], 1),
]):
    kind = "mcq" if len(options) == 4 else "true_false"
    Question.objects.create(quiz=quiz, position=i, kind=kind, text=text, options=options,
                            correct_index=correct, chunk_ids=[chunks[i].pk])
cards = [{{"front": "Mitochondrium", "back": "Kraftwerk"}},
         {{"front": "Ribosom", "back": "Proteinfabrik"}}]
create_deck(tess, "Organellen", cards, now=timezone.now())
"""


@pytest.fixture(scope="module")
def model():
    with StudyModel() as model:
        model.answer(json.dumps(questions(5)))
        yield model


@pytest.fixture(scope="module")
def class_app(start_app, model):
    with start_app(model_url=model.url, setup=SETUP) as app:
        yield app


def hand_out_here(page, note: str) -> str:
    """Hand out the item of the page the teacher is on; the results page's path."""
    page.get_by_text("Hand out to 7b").click()
    page.get_by_label("Note (optional)").fill(note)
    page.get_by_role("button", name="Hand out", exact=True).click()
    page.wait_for_url("**/study/class-sets/*/")
    return page.url.removeprefix(page.url.split("/study/")[0])


def play_quiz(page, choices: dict[str, str]) -> None:
    """Answer each question (by its text) with the option of that text: each student sees
    the questions and options in an order of their own."""
    page.goto("/study/class-sets/")
    page.get_by_role("link", name="Zellbiologie").click()
    for number in range(1, len(choices) + 1):
        page.get_by_text(f"Question {number} of {len(choices)}").wait_for()
        question = page.locator("#quiz-player legend").inner_text().strip()
        page.get_by_role("radio", name=choices[question], exact=True).check()
        last = number == len(choices)
        page.get_by_role("button", name="Submit quiz" if last else "Next").click()


def answer_first_card(page, deck_url: str, outcome: str) -> None:
    page.goto(deck_url + "study/")
    page.locator("#study-card .flashcard").click()
    page.get_by_role("button", name=re.compile(f"^{outcome}")).click()


def card_schedule(page, deck_id: str) -> dict:
    """The first card as this person's API shows it: their own due time and mastery."""
    return page.request.get(f"/api/v1/study/decks/{deck_id}").json()["cards"][0]


def test_two_students_study_a_class_quiz_and_deck_and_the_teacher_sees_each_ones_figures(
    browser, class_app
):
    teacher = log_in(browser, class_app, *TEACHER)
    teacher.goto("/study/quizzes/")
    quiz_results = hand_out_here(teacher, "Bis Freitag")
    teacher.goto("/study/decks/")
    teacher.get_by_role("link", name="Organellen").click()
    deck_url = teacher.url.removeprefix(class_app.url)
    deck_id = deck_url.strip("/").rsplit("/", 1)[-1]
    teachers_card = card_schedule(teacher, deck_id)
    deck_results = hand_out_here(teacher, "Jeden Tag fünf Minuten")

    alice = log_in(browser, class_app, "alice", PASSWORD)
    bob = log_in(browser, class_app, "bob", PASSWORD)
    for student in (alice, bob):
        student.goto("/study/class-sets/")
        listed = student.locator("#class-sets").inner_text()
        assert "Zellbiologie" in listed and "Organellen" in listed and "Bis Freitag" in listed

    # Alice gets all; Bob misses the last one.
    right = {
        "Was ist das Kraftwerk der Zelle?": "Mitochondrium",
        "Haben Pflanzen Zellwände?": "Ja",
        "Wo liegt die DNA?": "Kern",
    }
    play_quiz(alice, right)
    alice.get_by_text("3 of 3 correct (100 %)").wait_for()
    play_quiz(bob, {**right, "Wo liegt die DNA?": "Ribosom"})
    bob.get_by_text("2 of 3 correct (67 %)").wait_for()

    answer_first_card(alice, deck_url, "Got it")
    alice.get_by_text("1 of 2 mastered").wait_for()
    bobs_before = card_schedule(bob, deck_id)
    assert bobs_before["mastered"] is False and bobs_before["last_review_at"] is None
    answer_first_card(bob, deck_url, "Review")
    bob.get_by_text("0 of 2 mastered").first.wait_for()
    alices_card, bobs_card = card_schedule(alice, deck_id), card_schedule(bob, deck_id)
    assert alices_card["mastered"] is True and bobs_card["mastered"] is False
    assert alices_card["due_at"] != bobs_card["due_at"]
    # Bob's answer did not move Alice's schedule, and neither moved the teacher's own.
    assert card_schedule(alice, deck_id) == alices_card
    assert card_schedule(teacher, deck_id)["due_at"] == teachers_card["due_at"]
    assert card_schedule(teacher, deck_id)["last_review_at"] is None

    teacher.goto(quiz_results)
    rows = teacher.locator("#class-results")
    assert "100 %" in rows.locator('tr[data-student="alice"]').inner_text()
    assert "67 %" in rows.locator('tr[data-student="bob"]').inner_text()
    missed = teacher.locator("#most-missed li").first
    assert "Wo liegt die DNA?" in missed.inner_text()
    assert "1 student" in missed.inner_text()
    missed.get_by_text("From biologie.txt, page 3").click()
    assert "Passage 2" in missed.inner_text()

    teacher.goto(deck_results)
    # One review in one sitting is not yet memory (two days at least).
    assert "0 of 2 remembered" in teacher.locator('tr[data-student="alice"]').inner_text()
    assert "0 of 2 remembered" in teacher.locator('tr[data-student="bob"]').inner_text()
    assert "(1)" in teacher.locator('[data-review-days="alice"]').inner_text()
    assert "Mitochondrium" in teacher.locator("#most-missed").inner_text()

    # A student never reaches the class's results.
    assert bob.goto(quiz_results).status == 404
    for page in (teacher, alice, bob):
        page.context.close()


def test_a_quiz_generated_for_the_class_reaches_students_once_the_worker_made_it(
    browser, class_app, model
):
    teacher = log_in(browser, class_app, *TEACHER)
    alice = log_in(browser, class_app, "alice", PASSWORD)
    teacher.goto("/study/quizzes/")
    teacher.get_by_label("Questions").select_option("5")
    teacher.get_by_label("For a class").select_option(label="7b")
    with model.held():  # while a student looks
        teacher.get_by_role("button", name="Generate quiz").click()
        teacher.wait_for_url("**/study/quizzes/*/")
        quiz_path = teacher.url.removeprefix(class_app.url)
        # The teacher sees the card at once; the quiz is handed out, but not to students yet.
        teacher.get_by_text("Making a quiz of 5 questions").wait_for()
        alice.goto("/study/class-sets/")
        assert quiz_path not in alice.content()
        assert alice.goto(quiz_path).status == 404
    # Once the worker has made it, the quiz replaces the teacher's card...
    teacher.get_by_text("Question 1 of 5").wait_for(timeout=scaled_ms(90))
    assert teacher.locator("#generation-card").count() == 0
    # ...and the students find it from their teacher and play it.
    alice.goto("/study/class-sets/")
    alice.locator(f'#class-sets a[href="{quiz_path}"]').click()
    alice.get_by_text("Question 1 of 5").wait_for()
    alice.locator("input[name=choice]").nth(1).check()
    alice.get_by_role("button", name="Next").click()
    alice.get_by_text("Question 2 of 5").wait_for()
    for page in (teacher, alice):
        page.context.close()
