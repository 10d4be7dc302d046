import json

import pytest

from apps.study.models import Attempt, Quiz
from apps.study.quizzes.generation import create_quiz
from apps.study.tests.helpers import (
    generate,
    make_studied_document,
    mcq,
    questions,
    run_worker,
    true_false,
)
from tests.helpers.isolation import assert_only_owner_can_reach


def answer_key(quiz: Quiz) -> list[int]:
    """The right option of each question, where the quiz stored it (the options are shuffled
    when a quiz is made)."""
    return [question.correct_index for question in quiz.questions.all()]


def wrong(index: int) -> int:
    return 1 - index if index < 2 else 0


@pytest.fixture
def alices_quiz(alice, model) -> Quiz:
    make_studied_document(alice)
    model.answer(questions(5))
    return create_quiz(alice, num_questions=5, difficulty="beginner", types=["mcq", "true_false"])


def test_generating_a_quiz_from_the_page_stores_it_and_opens_the_player(alice, alice_client, model):
    make_studied_document(alice)
    model.answer(questions(7))  # the model overshoots: extras are trimmed

    response = alice_client.post("/study/quizzes/", {"num_questions": 5, "difficulty": "advanced",
                                                     "types": ["mcq", "true_false"]})  # fmt: skip
    run_worker()

    made = Quiz.objects.get(owner=alice)
    assert response.status_code == 302
    assert response["Location"] == f"/study/quizzes/{made.pk}/"
    assert made.status == "ready" and made.questions.count() == 5
    assert made.difficulty == "advanced"
    assert all(question.chunk_ids for question in made.questions.all())


def test_an_empty_vault_gets_a_clear_message_on_the_page(alice_client, alice, model):
    response = alice_client.post("/study/quizzes/", {"num_questions": 5, "difficulty": "beginner",
                                                     "types": ["mcq"]})  # fmt: skip

    assert response.status_code == 400
    assert b"Add documents" in response.content or b"no documents" in response.content


def test_a_model_that_is_down_gets_a_clear_message_on_the_page(alice_client, alice, model):
    make_studied_document(alice)
    model.fail_with = (500, "boom")

    response = alice_client.post("/study/quizzes/", {"num_questions": 5, "difficulty": "beginner",
                                                     "types": ["mcq"]})  # fmt: skip
    run_worker()
    page = alice_client.get(response["Location"]).content.decode()

    assert response.status_code == 302  # at once; the worker then meets the model down
    assert "language model" in Quiz.objects.get().error
    assert Quiz.objects.get().error in page and "Try again" in page


def test_grading_counts_answers_equal_to_correct_index(alices_quiz):
    key = answer_key(alices_quiz)  # questions(5): mcq, tf, mcq, tf, mcq
    assert alices_quiz.grade(key) == (5, 5)
    assert alices_quiz.grade([wrong(key[0]), key[1], None, wrong(key[3])]) == (1, 5)
    attempt, _ = alices_quiz.submit([key[0], key[1], key[2], wrong(key[3]), wrong(key[4])])
    assert (attempt.correct, attempt.total, attempt.percent) == (3, 5, 60)


def test_an_unfinished_quiz_resumes_after_a_refresh(alices_quiz, alice_client):
    url = f"/study/quizzes/{alices_quiz.pk}/"
    alice_client.get(url)
    alice_client.post(url + "answer/", {"position": 0, "choice": 2, "go": 1})
    alice_client.post(url + "answer/", {"position": 1, "choice": 1, "go": 2})

    page = alice_client.get(url).content.decode()

    assert "Question 3 of 5" in page
    assert Attempt.objects.get().answers[:2] == [2, 1]
    all_at_once = alice_client.get(url + "?mode=all").content.decode()
    assert all_at_once.count("checked") == 2


def test_submitting_scores_and_the_review_explains_with_sources(alices_quiz, alice_client):
    url = f"/study/quizzes/{alices_quiz.pk}/"
    alice_client.get(url)
    key = answer_key(alices_quiz)
    chosen = [key[0], wrong(key[1]), key[2], key[3], wrong(key[4])]
    response = alice_client.post(url + "submit/", {f"q{i}": c for i, c in enumerate(chosen)})
    attempt = Attempt.objects.get()

    review = alice_client.get(response["Location"]).content.decode()

    assert response["Location"] == f"{url}attempts/{attempt.pk}/"
    assert "3 of 5 correct (60 %)" in review
    assert "powerhouse of the cell" in review
    assert "Open source: cells.txt" in review


def test_a_badge_earned_by_a_quiz_is_announced_by_its_name(alices_quiz, alice_client):
    url = f"/study/quizzes/{alices_quiz.pk}/"
    alice_client.get(url)
    response = alice_client.post(url + "submit/", {"q0": 1, "q1": 1, "q2": 1, "q3": 0, "q4": 0})

    review = alice_client.get(response["Location"]).content.decode()

    assert "New badge: First Quiz" in review
    assert "first_quiz" not in review.replace('data-badge="first_quiz"', "")


def test_retake_starts_a_fresh_attempt(alices_quiz, alice_client):
    url = f"/study/quizzes/{alices_quiz.pk}/"
    alice_client.post(url + "submit/", {"q0": 1})
    alice_client.post(url + "retake/")

    assert alices_quiz.attempts.count() == 2
    assert alices_quiz.open_attempt().answers == [None] * 5


def test_exports_are_markdown_and_pdf(alices_quiz, alice_client):
    url = f"/study/quizzes/{alices_quiz.pk}/"
    markdown = alice_client.get(url + "export.md")
    pdf = alice_client.get(url + "export.pdf")

    assert markdown["Content-Type"].startswith("text/markdown")
    assert "## 1. Which organelle makes energy, case 0?" in markdown.content.decode()
    assert "**Mitochondrion**" in markdown.content.decode()
    assert pdf.content.startswith(b"%PDF")
    assert alice_client.get(url + "export.exe").status_code == 404


def test_the_api_generates_plays_and_scores_a_quiz(alice, alice_client, model):
    make_studied_document(alice)
    model.answer(questions(10))

    body = generate(alice_client, "/api/v1/study/quizzes", {"num_questions": 10, "difficulty":
                    "intermediate", "types": ["mcq", "true_false"]})  # fmt: skip
    answers = answer_key(Quiz.objects.get(pk=body["id"]))
    attempt = alice_client.post(f"/api/v1/study/quizzes/{body['id']}/attempts",
                                {"answers": answers}, content_type="application/json")  # fmt: skip

    assert body["status"] == "ready" and len(body["questions"]) == 10
    assert "correct_index" not in json.dumps(body["questions"])
    assert attempt.status_code == 201
    assert (attempt.json()["correct"], attempt.json()["total"], attempt.json()["percent"]) == (
        10, 10, 100)  # fmt: skip
    assert (
        alice_client.get(f"/api/v1/study/quizzes/{body['id']}").json()["attempts"][0]["percent"]
        == 100
    )


@pytest.mark.parametrize(
    ("payload", "status"),
    [
        ({"num_questions": 7}, 422),
        ({"difficulty": "impossible"}, 422),
        ({"types": ["essay"]}, 422),
        ({"types": []}, 422),
    ],
)
def test_the_api_refuses_bad_quiz_bodies_with_json_errors(alice_client, alice, payload, status):
    response = alice_client.post("/api/v1/study/quizzes", payload, content_type="application/json")

    assert response.status_code == status
    assert "detail" in response.json()


def test_the_api_says_clearly_when_the_vault_is_empty_or_the_model_down(alice, alice_client, model):
    body = {"num_questions": 5, "difficulty": "beginner", "types": ["mcq"]}
    empty = alice_client.post("/api/v1/study/quizzes", body, content_type="application/json")
    make_studied_document(alice)
    model.fail_with = (500, "boom")
    down = generate(alice_client, "/api/v1/study/quizzes", body)
    model.fail_with = None
    model.answer("no quiz today")
    garbage = generate(alice_client, "/api/v1/study/quizzes", body)

    # An empty vault is refused at once; what the worker meets is the quiz's error.
    assert empty.status_code == 400 and "Knowledge Base" in empty.json()["detail"]
    assert down["status"] == "failed" and "The language model failed" in down["error"]
    assert garbage["status"] == "failed" and "No question could be made" in garbage["error"]
    assert down["questions"] == garbage["questions"] == []


def test_the_api_refuses_attempts_that_do_not_fit(alices_quiz, alice_client):
    url = f"/api/v1/study/quizzes/{alices_quiz.pk}/attempts"
    short = alice_client.post(url, {"answers": [1]}, content_type="application/json")
    wrong = alice_client.post(url, {"answers": [9, 0, 1, 0, 1]}, content_type="application/json")

    # 422 like every other body that does not fit (it was 400 before study errors had one map)
    assert (short.status_code, wrong.status_code) == (422, 422)


def test_bob_cannot_open_attempt_or_export_alices_quiz(alices_quiz, alice_client, bob_client):
    alice_client.post(f"/study/quizzes/{alices_quiz.pk}/submit/", {"q0": 1})
    attempt = alices_quiz.attempts.get()
    chunk_id = alices_quiz.questions.first().chunk_ids[0]
    base = f"/study/quizzes/{alices_quiz.pk}/"

    for url, methods in [
        (base, ["get"]),
        (base + "answer/", ["post"]),
        (base + "submit/", ["post"]),
        (base + "retake/", ["post"]),
        (f"{base}attempts/{attempt.pk}/", ["get"]),
        (base + "export.md", ["get"]),
        (base + "export.pdf", ["get"]),
        (f"/study/sources/{chunk_id}/", ["get"]),
        (f"/api/v1/study/quizzes/{alices_quiz.pk}", ["get"]),
        (f"/api/v1/study/quizzes/{alices_quiz.pk}/export", ["get"]),
    ]:
        assert_only_owner_can_reach(url, bob_client, methods)
    assert bob_client.get("/api/v1/study/quizzes").json() == []
    attempt_api = f"/api/v1/study/quizzes/{alices_quiz.pk}/attempts"
    bob_try = bob_client.post(attempt_api, {"answers": [1, 0, 1, 0, 1]},
                              content_type="application/json")  # fmt: skip
    assert bob_try.status_code == 404
    assert alices_quiz.attempts.count() == 1


def test_only_asked_for_question_types_are_kept(alice, model):
    make_studied_document(alice)
    model.answer({"questions": [mcq(0), true_false(1), mcq(2), true_false(3)]})

    made = create_quiz(alice, num_questions=5, difficulty="beginner", types=["true_false"])

    kinds = list(made.questions.values_list("kind", "extractive"))
    assert [kind for kind, extractive in kinds if not extractive] == ["true_false"] * 2
    assert {kind for kind, _ in kinds} == {"true_false"}  # what the text filled in too


def test_a_submitted_quiz_of_ones_own_is_recorded_for_progress_without_what_was_missed(
    alices_quiz, alice_client
):
    from apps.progress.models import EarnedBadge, Event, MissedQuestion

    key = answer_key(alices_quiz)
    alice_client.post(
        f"/study/quizzes/{alices_quiz.pk}/submit/", {"q0": key[0], "q1": wrong(key[1])}
    )

    event = Event.objects.get(user=alices_quiz.owner, kind=Event.Kind.QUIZ)
    assert event.school_class is None and event.score_percent is not None
    assert not MissedQuestion.objects.exists()  # no class's overview may show them
    assert EarnedBadge.objects.filter(user=alices_quiz.owner, badge__code="first_quiz").exists()


def test_a_quiz_cut_from_the_text_says_so_in_plain_words(alice, alice_client, notes):
    quiz = Quiz.objects.get(pk=notes.make(alice_client, "quizzes", num_questions=5))
    header = alice_client.get(f"/study/quizzes/{quiz.pk}/").content.decode()
    assert "made by from" not in header
    assert "cut from the documents' text, no model wrote them" in header


def test_a_quiz_a_model_wrote_names_the_model(alices_quiz, alice_client):
    header = alice_client.get(f"/study/quizzes/{alices_quiz.pk}/").content.decode()
    assert f"made by {alices_quiz.model} ({alices_quiz.backend})" in header
