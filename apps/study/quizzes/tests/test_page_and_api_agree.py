"""The page and the API answer a quiz through one rule: bad answers are refused by both, with
the same message, and nothing is saved."""

import pytest

from apps.progress.models import Event
from apps.study.quizzes.generation import create_quiz
from apps.study.quizzes.models import Question
from apps.study.tests.helpers import make_studied_document, questions


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
    right = [question.correct_index for question in alices_quiz.questions.all()]
    third = 1 if right[2] == 0 else 0
    page = alice_client.post(
        f"/study/quizzes/{alices_quiz.pk}/submit/", {"q0": right[0], "q1": right[1], "q2": third}
    )
    api = alice_client.post(
        f"/api/v1/study/quizzes/{alices_quiz.pk}/attempts",
        {"answers": [right[0], right[1], third, None, None]},
        content_type="application/json",
    )

    by_page, by_api = alices_quiz.attempts.order_by("pk")
    assert page.status_code == 302 and api.status_code == 201
    assert (by_page.correct, by_page.total) == (by_api.correct, by_api.total) == (2, 5)
    assert Event.objects.filter(kind=Event.Kind.QUIZ).count() == 2


# questions(5): mcq "Which organelle makes energy, case 0?" with 4 options, correct 1.
TYPO = {"question": "Which organelle makes energy, case 0 ?"}


def page_edit(client, quiz, position: int, **changes):
    question = quiz.questions.get(position=position)
    fields = {
        "question": question.text,
        "options": question.options,
        "correct_index": question.correct_index,
        "explanation": question.explanation,
        **changes,
    }
    return client.post(f"/study/quizzes/{quiz.pk}/questions/{position}/", fields)


def api_edit(client, quiz, position: int, **changes):
    url = f"/api/v1/study/quizzes/{quiz.pk}/questions/{position}"
    return client.patch(url, changes, content_type="application/json")


def test_page_and_api_keep_the_version_for_a_typo_and_start_a_new_one_for_a_change(
    alices_quiz, alice_client
):
    by_page = page_edit(alice_client, alices_quiz, 0, **TYPO)
    by_api = api_edit(
        alice_client, alices_quiz, 2, question="Which organelle makes energy, case 2?!"
    )
    changed_page = page_edit(alice_client, alices_quiz, 1, correct_index=1)
    changed_api = api_edit(alice_client, alices_quiz, 3, correct_index=1)

    assert by_page.status_code == 302 and by_api.json()["typo_fix"] is True
    assert changed_page.status_code == 302 and changed_api.json()["typo_fix"] is False
    versions = list(alices_quiz.questions.values_list("version", flat=True))
    assert versions == [1, 2, 1, 2, 1]
    assert alices_quiz.questions.get(position=0).text == TYPO["question"]
    page = alice_client.get(by_page["Location"]).content.decode()
    assert "a typo fix, results kept" in page


def test_page_and_api_refuse_a_broken_question_and_the_last_removal_alike(
    alice, alices_quiz, alice_client
):
    page = page_edit(alice_client, alices_quiz, 0, options=["A", "", "C", "D"])
    api = api_edit(alice_client, alices_quiz, 0, options=["A", " ", "C", "D"])
    message = "A question needs its text and 4 options, none empty."
    assert page.status_code == 400 and message in page.content.decode()
    assert api.status_code == 422 and api.json() == {"detail": message}

    for position in (4, 3, 2):
        alice_client.post(f"/study/quizzes/{alices_quiz.pk}/questions/{position}/delete/")
    alice_client.delete(f"/api/v1/study/quizzes/{alices_quiz.pk}/questions/1")
    last_page = alice_client.post(f"/study/quizzes/{alices_quiz.pk}/questions/0/delete/")
    last_api = alice_client.delete(f"/api/v1/study/quizzes/{alices_quiz.pk}/questions/0")

    message = "A quiz keeps at least one question."
    assert last_page.status_code == 400 and message in last_page.content.decode()
    assert last_api.status_code == 422 and last_api.json() == {"detail": message}
    assert alices_quiz.questions.count() == 1


def test_a_question_removed_while_it_is_edited_is_a_404_on_the_api_and_a_message_on_the_page(
    alices_quiz, alice_client, monkeypatch
):
    """A PATCH and a DELETE of one question at once: the DELETE wins between the PATCH's
    lookup and its save, which then finds no row to change."""
    edit = Question.edit

    def removed_first(question, **changes):
        alices_quiz.remove_question(Question.objects.get(pk=question.pk))
        return edit(question, **changes)

    monkeypatch.setattr(Question, "edit", removed_first)
    api = api_edit(alice_client, alices_quiz, 0, correct_index=0)
    page = page_edit(alice_client, alices_quiz, 0, correct_index=0)

    message = "This question was removed meanwhile: reload the quiz."
    assert api.status_code == 404 and api.json() == {"detail": message}
    assert page.status_code == 400 and message in page.content.decode()
    assert alices_quiz.questions.count() == 3


def test_bob_can_neither_open_the_editor_nor_edit_or_remove_alices_questions(
    alices_quiz, bob_client
):
    before = list(alices_quiz.questions.values_list("text", "version"))
    for response in (
        bob_client.get(f"/study/quizzes/{alices_quiz.pk}/edit/"),
        page_edit(bob_client, alices_quiz, 0, **TYPO),
        bob_client.post(f"/study/quizzes/{alices_quiz.pk}/questions/0/delete/"),
        api_edit(bob_client, alices_quiz, 0, **TYPO),
        bob_client.delete(f"/api/v1/study/quizzes/{alices_quiz.pk}/questions/0"),
    ):
        assert response.status_code == 404
    assert list(alices_quiz.questions.values_list("text", "version")) == before
