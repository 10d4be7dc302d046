"""The teacher's results per class set: each student's figures, what the class misses most
with its passage, old versions after an edit, and the CSV export."""

import csv
import io

import pytest

from apps.study.classsets.tests.factories import (
    answer,
    class_passages,
    classmate,
    make_deck,
    make_mindmap,
    make_quiz,
    make_workshop,
    shown_place,
)
from apps.study.models import ClassSet
from apps.study.quizzes.typos import edit_distance
from tests.helpers.classes import class_of
from tests.helpers.users import client_for

pytestmark = pytest.mark.django_db
JSON = "application/json"


def results(client, class_set) -> dict:
    response = client.get(f"/api/v1/study/class-sets/{class_set.pk}/results")
    assert response.status_code == 200, response.content
    return response.json()


def by_student(report: dict) -> dict:
    return {row["username"]: row for row in report["students"]}


@pytest.fixture
def carla(db):
    return classmate("carla")


@pytest.fixture
def class_quiz(tess):
    quiz = make_quiz(tess, class_passages(tess))
    return quiz, ClassSet.objects.hand_out(
        tess, quiz, class_of(tess), attempts=None, grading="latest"
    )


def test_the_teacher_sees_who_started_who_finished_and_each_score(
    tess_client, alice_client, bob_client, carla, class_quiz
):
    quiz, class_set = class_quiz
    answer(alice_client, quiz, [1, 0, 1])
    answer(bob_client, quiz, [0, 0, 0])
    client_for(carla).get(f"/study/quizzes/{quiz.pk}/")  # opened, not submitted

    rows = by_student(results(tess_client, class_set))

    assert set(rows) == {"alice", "bob", "carla"}  # teachers are not in the class
    assert (rows["alice"]["score"], rows["alice"]["detail"]) == (100, "3/3")
    assert (rows["bob"]["score"], rows["bob"]["detail"]) == (33, "1/3")
    assert rows["carla"]["started"] is True and rows["carla"]["finished"] is False
    assert rows["carla"]["score"] is None


def test_the_latest_attempt_is_a_students_score(tess_client, alice_client, class_quiz):
    quiz, class_set = class_quiz
    answer(alice_client, quiz, [0, 0, 0])
    answer(alice_client, quiz, [1, 0, 1])

    assert by_student(results(tess_client, class_set))["alice"]["score"] == 100


def test_the_question_the_class_misses_most_comes_with_its_passage(
    tess_client, alice_client, bob_client, class_quiz
):
    quiz, class_set = class_quiz
    answer(alice_client, quiz, [1, 1, 0])  # misses questions 2 and 3
    answer(bob_client, quiz, [1, 0, 0])  # misses question 3

    missed = results(tess_client, class_set)["most_missed"]

    assert [(m["position"], m["misses"], m["students"]) for m in missed] == [(2, 2, 2), (1, 1, 1)]
    assert missed[0]["text"] == "Wo liegt die DNA?"
    assert missed[0]["passage"]["filename"] == "biologie.txt"
    assert missed[0]["passage"]["text"].startswith("Passage 2:")
    page = tess_client.get(f"/study/class-sets/{class_set.pk}/").content.decode()
    assert "Wo liegt die DNA?" in page and "Passage 2:" in page


def test_the_cards_the_class_answers_review_most_come_first(
    tess, tess_client, alice_client, bob_client
):
    chunks = class_passages(tess)
    deck = make_deck(tess, chunks)
    class_set = ClassSet.objects.hand_out(tess, deck, class_of(tess))
    first, second = deck.cards.all()
    review = f"/api/v1/study/decks/{deck.pk}/cards/{{}}/review"
    alice_client.post(review.format(first.pk), {"outcome": "review"}, content_type=JSON)
    bob_client.post(review.format(first.pk), {"outcome": "review"}, content_type=JSON)
    bob_client.post(review.format(second.pk), {"outcome": "got_it"}, content_type=JSON)

    report = results(tess_client, class_set)

    [missed] = report["most_missed"]
    assert (missed["text"], missed["students"]) == ("Mitochondrium", 2)
    assert missed["passage"]["chunk_id"] == chunks[0].pk
    rows = by_student(report)
    # One sitting is one day: nothing is remembered yet (deck mastery: test_deck_memory.py).
    assert (rows["alice"]["score"], rows["alice"]["detail"]) == (0, "0 of 2 remembered")
    assert (rows["bob"]["score"], rows["bob"]["detail"]) == (0, "0 of 2 remembered")


def test_workshop_and_mindmap_figures(tess, tess_client, alice_client, bob):
    workshop = make_workshop(tess, lessons=2)
    mindmap = make_mindmap(tess)
    workshop_set = ClassSet.objects.hand_out(tess, workshop, class_of(tess))
    mindmap_set = ClassSet.objects.hand_out(tess, mindmap, class_of(tess))
    alice_client.post(f"/api/v1/study/workshops/{workshop.pk}/lessons/1/complete")
    alice_client.post(
        f"/api/v1/study/mindmaps/{mindmap.pk}/collapsed", {"node": "r"}, content_type=JSON
    )

    lessons = by_student(results(tess_client, workshop_set))
    arranged = by_student(results(tess_client, mindmap_set))

    assert (lessons["alice"]["score"], lessons["alice"]["detail"]) == (50, "1 of 2 lessons")
    assert lessons["bob"]["started"] is False
    assert arranged["alice"]["started"] is True and arranged["bob"]["started"] is False


# --- Editing a handed-out quiz ---------------------------------------------------------------


def question_url(quiz, position: int) -> str:
    return f"/api/v1/study/quizzes/{quiz.pk}/questions/{position}"


def test_a_typo_fix_keeps_the_results(tess_client, alice_client, class_quiz):
    quiz, class_set = class_quiz
    answer(alice_client, quiz, [1, 0, 0])

    fixed = tess_client.patch(
        question_url(quiz, 0), {"question": "Was ist das Kraftwerk der Zelle ?"}, content_type=JSON
    )

    assert fixed.json() == {"position": 0, "version": 1, "typo_fix": True}
    report = results(tess_client, class_set)
    assert by_student(report)["alice"]["old_version"] is False
    assert [m["position"] for m in report["most_missed"]] == [2]


def test_changing_a_question_marks_the_attempts_before_as_on_the_old_version(
    tess_client, alice_client, bob_client, class_quiz
):
    quiz, class_set = class_quiz
    answer(alice_client, quiz, [1, 0, 0])  # missed question 3 as it was

    changed = tess_client.patch(
        question_url(quiz, 2),
        {"question": "In welchem Organell liegt die DNA?", "correct_index": 1},
        content_type=JSON,
    )
    answer(bob_client, quiz, [1, 0, 0])  # misses the new question 3

    assert changed.json() == {"position": 2, "version": 2, "typo_fix": False}
    report = results(tess_client, class_set)
    rows = by_student(report)
    assert rows["alice"]["old_version"] is True and rows["bob"]["old_version"] is False
    # Alice's miss was of the old question: only Bob's counts against the new one.
    assert [(m["position"], m["students"]) for m in report["most_missed"]] == [(2, 1)]
    review = alice_client.get(
        f"/study/quizzes/{quiz.pk}/attempts/{quiz.attempts.get(user__username='alice').pk}/"
    ).content.decode()
    assert "older version" in review


def test_a_new_correct_answer_is_a_change_not_a_typo(tess_client, class_quiz):
    quiz, _ = class_quiz
    response = tess_client.patch(question_url(quiz, 1), {"correct_index": 1}, content_type=JSON)
    assert response.json()["typo_fix"] is False


def test_removing_a_question_marks_the_attempts_before_and_keeps_their_answers(
    tess_client, alice_client, class_quiz
):
    quiz, class_set = class_quiz
    attempt = answer(alice_client, quiz, [1, 1, 1]).json()  # misses question 2

    assert tess_client.delete(question_url(quiz, 1)).status_code == 204

    assert [q.position for q in quiz.questions.all()] == [0, 1]
    report = results(tess_client, class_set)
    assert by_student(report)["alice"]["old_version"] is True
    assert report["most_missed"] == []  # the missed question is gone
    review = alice_client.get(f"/study/quizzes/{quiz.pk}/attempts/{attempt['id']}/")
    text = review.content.decode()
    assert "Haben Pflanzen Zellwände?" not in text and "Wo liegt die DNA?" in text


def test_removing_a_question_moves_the_answers_of_an_unfinished_attempt(
    tess_client, alice_client, class_quiz
):
    quiz, _ = class_quiz
    url = f"/study/quizzes/{quiz.pk}/"
    alice_client.post(url + "answer/", shown_place(alice_client, quiz, 0, 1))
    alice_client.post(url + "answer/", shown_place(alice_client, quiz, 2, 3))

    tess_client.delete(question_url(quiz, 1))

    assert quiz.attempts.get().answers == [1, 3]


def test_an_edit_that_breaks_a_question_is_refused(tess_client, class_quiz):
    quiz, _ = class_quiz
    too_few = tess_client.patch(question_url(quiz, 0), {"options": ["a", "b"]}, content_type=JSON)
    beyond = tess_client.patch(question_url(quiz, 1), {"correct_index": 3}, content_type=JSON)

    assert too_few.status_code == 422 and beyond.status_code == 422
    assert quiz.questions.get(position=0).version == 1


def test_a_typo_is_at_most_two_characters_per_text():
    assert edit_distance("Mitochondirum", "Mitochondrium", 2) == 2
    assert edit_distance("Kern", "Kern", 2) == 0
    assert edit_distance("Nucleus", "Ribosome", 2) == 3  # counted no further than limit + 1


# --- CSV --------------------------------------------------------------------------------------


def test_the_results_export_as_csv_with_formulas_defused(tess_client, db, class_quiz):
    quiz, class_set = class_quiz
    mallory = classmate("mallory")
    mallory.first_name, mallory.last_name = '=HYPERLINK("http://evil")', "@x"
    mallory.save()
    answer(client_for(mallory), quiz, [1, 0, 0])

    response = tess_client.get(f"/api/v1/study/class-sets/{class_set.pk}/results.csv")
    page = tess_client.get(f"/study/class-sets/{class_set.pk}/results.csv")

    assert response["Content-Type"] == "text/csv"
    name = f"class-results-quiz-{class_set.pk}-zellbiologie.csv"
    assert response["Content-Disposition"] == f'attachment; filename="{name}"'
    assert page.content == response.content
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    [row] = rows
    assert row["name"] == '\'=HYPERLINK("http://evil") @x'
    assert (row["username"], row["finished"], row["score_percent"]) == ("mallory", "yes", "67")
