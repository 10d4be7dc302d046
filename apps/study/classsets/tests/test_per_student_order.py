"""Each student sees a class quiz's questions and options in an order of their own, the same on
every visit and attempt; answers are graded and reported in the quiz's own order."""

import re

import pytest

from apps.study.classsets.tests.factories import classmate, in_shown_order
from apps.study.models import ClassSet, Question, Quiz
from tests.helpers.classes import class_of
from tests.helpers.users import client_for

pytestmark = pytest.mark.django_db
JSON = "application/json"


def long_quiz(owner) -> Quiz:
    """Eight questions of four options; the right answer of question n is option n % 4."""
    quiz = Quiz.objects.create(
        owner=owner, title="Lang", difficulty="beginner", types=["mcq"], requested=8
    )
    for n in range(8):
        Question.objects.create(
            quiz=quiz,
            position=n,
            kind="mcq",
            text=f"Frage {n}?",
            options=[f"F{n} Option {i}" for i in range(4)],
            correct_index=n % 4,
        )
    return quiz


def seen(client, quiz) -> list[tuple[str, list[str]]]:
    questions = client.get(f"/api/v1/study/quizzes/{quiz.pk}").json()["questions"]
    return [(q["question"], q["options"]) for q in questions]


def right_answers(quiz) -> list[int]:
    return list(quiz.questions.values_list("correct_index", flat=True))


@pytest.fixture
def quiz(tess):
    quiz = long_quiz(tess)
    ClassSet.objects.hand_out(tess, quiz, class_of(tess), attempts=None, reveal="after_attempt")
    return quiz


def test_students_see_orders_of_their_own_and_the_teacher_the_quizs_own(
    tess_client, alice_client, bob_client, quiz
):
    carla_client = client_for(classmate("carla"))
    orders = [seen(client, quiz) for client in (alice_client, bob_client, carla_client)]
    own = [(q.text, q.options) for q in quiz.questions.all()]

    assert seen(tess_client, quiz) == own
    assert len({str(order) for order in orders}) > 1
    for order in orders:  # the same questions and options, shuffled
        assert sorted((text, sorted(options)) for text, options in order) == sorted(own)
    assert any(order != own for order in orders)


def test_a_students_order_is_the_same_on_every_visit_and_attempt(alice_client, quiz):
    before = seen(alice_client, quiz)
    url = f"/api/v1/study/quizzes/{quiz.pk}/attempts"
    alice_client.post(url, {"answers": [0] * 8}, content_type=JSON)
    alice_client.post(f"/study/quizzes/{quiz.pk}/retake/")

    assert seen(alice_client, quiz) == before == seen(alice_client, quiz)


def test_the_player_page_shows_the_order_the_api_shows(alice_client, quiz):
    page = alice_client.get(f"/study/quizzes/{quiz.pk}/?mode=all").content.decode()

    texts = re.findall(r"<legend>\d+\. (Frage \d\?)", page)
    options = re.findall(r"> (F\d Option \d)</label>", page)
    api = seen(alice_client, quiz)
    assert texts == [text for text, _ in api]
    assert options == [option for _, opts in api for option in opts]


def test_answers_in_the_shown_order_are_graded_against_the_quizs_own(
    alice_client, bob_client, quiz
):
    url = f"/api/v1/study/quizzes/{quiz.pk}/attempts"
    sent = in_shown_order(alice_client, quiz, right_answers(quiz))
    by_api = alice_client.post(url, {"answers": sent}, content_type=JSON).json()

    fields = {
        f"q{i}": choice
        for i, choice in enumerate(in_shown_order(bob_client, quiz, right_answers(quiz)))
    }
    by_page = bob_client.post(f"/study/quizzes/{quiz.pk}/submit/", {**fields, "mode": "all"})

    assert by_api["percent"] == 100
    assert all(r["correct"] and r["chosen"] == r["correct_index"] for r in by_api["results"])
    assert "8 of 8 correct" in bob_client.get(by_page["Location"]).content.decode()
    stored = quiz.attempts.get(user__username="alice").answers
    assert stored == right_answers(quiz)  # kept in the quiz's own order


def test_one_answer_saved_on_the_page_lands_on_the_question_shown(alice_client, quiz):
    shown = seen(alice_client, quiz)
    text, options = shown[0]
    alice_client.post(f"/study/quizzes/{quiz.pk}/answer/", {"position": 0, "choice": 2, "go": 1})

    question = quiz.questions.get(text=text)
    answers = quiz.attempts.get().answers
    assert answers[question.position] == question.options.index(options[2])
    assert sum(a is not None for a in answers) == 1


def test_the_teachers_results_name_the_quizs_own_question(tess_client, alice_client, quiz):
    wrong_first = right_answers(quiz)
    wrong_first[0] = (wrong_first[0] + 1) % 4
    sent = in_shown_order(alice_client, quiz, wrong_first)
    alice_client.post(
        f"/api/v1/study/quizzes/{quiz.pk}/attempts", {"answers": sent}, content_type=JSON
    )
    class_set = ClassSet.objects.for_item(quiz).get()

    report = tess_client.get(f"/api/v1/study/class-sets/{class_set.pk}/results").json()

    [missed] = report["most_missed"]
    assert (missed["position"], missed["text"]) == (0, "Frage 0?")
