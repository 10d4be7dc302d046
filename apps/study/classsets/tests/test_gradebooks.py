"""A class set's marks as Moodle's grade import and Canvas's gradebook CSV: the class's students,
the mark the set's policy grades out of the quiz's maximum, and the columns each gradebook
matches students by."""

import csv
import io

import pytest

from apps.study.classsets.tests.factories import answer, classmate, make_deck, make_quiz
from apps.study.models import ClassSet
from tests.helpers.classes import class_of, make_class
from tests.helpers.users import client_for, make_user


def rows(response) -> list[list[str]]:
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "text/csv"
    return list(csv.reader(io.StringIO(response.content.decode())))


@pytest.fixture
def graded_quiz(tess, alice, bob, alice_client, bob_client):
    """Alice: all three right, then two; bob: one right, once; carla: nothing yet."""
    classmate("carla")
    alice.email, alice.first_name, alice.last_name = "alice@school.test", "Alice", "Liddell"
    alice.save()
    quiz = make_quiz(tess)
    class_set = ClassSet.objects.hand_out(tess, quiz, class_of(tess), attempts=None)
    answer(alice_client, quiz, [1, 0, 1])
    answer(alice_client, quiz, [1, 0, 0])
    answer(bob_client, quiz, [1, 1, 0])
    return class_set


@pytest.mark.parametrize(("grading", "alice_mark"), [("first", "3"), ("average", "2.5")])
def test_moodle_gets_username_email_and_the_mark_out_of_the_quizs_maximum(
    tess_client, graded_quiz, grading, alice_mark
):
    ClassSet.objects.filter(pk=graded_quiz.pk).update(grading=grading)

    table = rows(
        tess_client.get(f"/api/v1/study/class-sets/{graded_quiz.pk}/results.csv?for=moodle")
    )

    assert table == [  # by family name, as the class is listed (bob and carla have none)
        ["username", "email", "Zellbiologie"],
        ["bob", "", "1"],
        ["carla", "", ""],  # no attempt: an empty cell leaves the gradebook as it was
        ["alice", "alice@school.test", alice_mark],
    ]


def test_canvas_gets_its_student_columns_the_points_possible_and_the_assignment(
    tess_client, graded_quiz
):
    response = tess_client.get(f"/study/class-sets/{graded_quiz.pk}/results.csv?for=canvas")

    assert rows(response) == [
        ["Student", "ID", "SIS Login ID", "Section", "Zellbiologie"],
        ["Points Possible", "", "", "", "3"],
        ["bob", "", "bob", "7b", "1"],
        ["carla", "", "carla", "7b", ""],
        ["Liddell, Alice", "", "alice", "7b", "3"],
    ]
    assert response["Content-Disposition"] == (
        'attachment; filename="canvas-marks-7b-zellbiologie.csv"'
    )


def test_marks_are_per_class_and_only_for_the_classs_teachers(tess, tess_client, alice):
    quiz = make_quiz(tess)
    ClassSet.objects.hand_out(tess, quiz, class_of(tess), attempts=None)
    other_class = make_class(tess, [make_user("dora")], name="8a")
    in_8a = ClassSet.objects.hand_out(tess, quiz, other_class, attempts=None)
    url = f"/api/v1/study/class-sets/{in_8a.pk}/results.csv?for=moodle"

    table = rows(tess_client.get(url))
    other_teacher = client_for(make_user("otto", teacher=True))

    assert [row[0] for row in table] == ["username", "dora"]
    assert other_teacher.get(url).status_code == 404
    assert client_for(alice).get(url).status_code == 404


def test_a_deck_gives_its_mastery_out_of_100(tess, tess_client, alice):
    class_set = ClassSet.objects.hand_out(tess, make_deck(tess), class_of(tess))

    table = rows(tess_client.get(f"/api/v1/study/class-sets/{class_set.pk}/results.csv?for=canvas"))

    assert table[1] == ["Points Possible", "", "", "", "100"]


def test_the_results_page_offers_both_gradebooks_and_refuses_others(tess_client, graded_quiz):
    page = tess_client.get(f"/study/class-sets/{graded_quiz.pk}/").content.decode()
    url = f"/study/class-sets/{graded_quiz.pk}/results.csv"

    assert f"{url}?for=moodle" in page and f"{url}?for=canvas" in page
    assert tess_client.get(f"{url}?for=blackboard").status_code == 404
    assert (
        tess_client.get(f"/api/v1/study/class-sets/{graded_quiz.pk}/results.csv?for=x").status_code
        == 422
    )
