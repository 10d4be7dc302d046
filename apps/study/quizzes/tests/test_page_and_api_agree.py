"""The page and the API answer a quiz through one rule: bad answers are refused by both, with
the same message, and nothing is saved."""

import pytest

from apps.progress.models import Event
from apps.study.conftest import make_studied_document, questions
from apps.study.quizzes.generation import create_quiz


@pytest.fixture
def alices_quiz(alice, model):
    make_studied_document(alice)
    model.answer(questions(5))
    return create_quiz(alice, num_questions=5, difficulty="beginner", types=["mcq", "true_false"])


def test_an_answer_that_is_not_an_option_is_refused_by_page_and_api(alices_quiz, alice_client):
    page = alice_client.post(f"/study/quizzes/{alices_quiz.pk}/submit/", {"q0": "9"})
    api = alice_client.post(
        f"/api/v1/study/quizzes/{alices_quiz.pk}/attempts",
        {"answers": [9, 0, 1, 0, 1]},
        content_type="application/json",
    )

    message = "Answer 9 is not an option of question 1."
    assert page.status_code == 400 and message in page.content.decode()
    assert api.status_code == 422 and api.json() == {"detail": message}
    assert not alices_quiz.attempts.filter(submitted_at__isnull=False).exists()
    assert not Event.objects.filter(kind=Event.Kind.QUIZ).exists()


def test_an_answer_that_is_not_a_number_is_refused_on_the_page(alices_quiz, alice_client):
    url = f"/study/quizzes/{alices_quiz.pk}/"
    alice_client.post(url + "answer/", {"position": 0, "choice": 1})

    submitted = alice_client.post(url + "submit/", {"q1": "true"})
    answered = alice_client.post(url + "answer/", {"position": 1, "choice": "x"})

    assert submitted.status_code == 400 and "is not an option" in submitted.content.decode()
    assert answered.status_code == 400 and "is not an option" in answered.content.decode()
    assert alices_quiz.open_attempt().answers == [1, None, None, None, None]


@pytest.mark.parametrize("answers", [[1], [1] * 21])
def test_too_few_or_too_many_answers_are_refused_by_the_api_and_save_nothing(
    alices_quiz, alice_client, answers
):
    api = alice_client.post(
        f"/api/v1/study/quizzes/{alices_quiz.pk}/attempts",
        {"answers": answers},
        content_type="application/json",
    )

    assert api.status_code == 422
    assert api.json() == {"detail": "Send one answer per question: 5 answers."}
    assert not alices_quiz.attempts.exists()


def test_good_answers_score_the_same_on_page_and_api(alices_quiz, alice_client):
    page = alice_client.post(
        f"/study/quizzes/{alices_quiz.pk}/submit/", {"q0": 1, "q1": 0, "q2": 0}
    )
    api = alice_client.post(
        f"/api/v1/study/quizzes/{alices_quiz.pk}/attempts",
        {"answers": [1, 0, 0, None, None]},
        content_type="application/json",
    )

    by_page, by_api = alices_quiz.attempts.order_by("pk")
    assert page.status_code == 302 and api.status_code == 201
    assert (by_page.correct, by_page.total) == (by_api.correct, by_api.total) == (2, 5)
    assert Event.objects.filter(kind=Event.Kind.QUIZ).count() == 2
