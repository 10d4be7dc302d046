"""The teacher's report on a class quiz: every attempt with the figure the policy grades, and
per question the facility, the discrimination index and the count of each option, on the page,
the API and the CSV alike, in the quiz's own order."""

import csv
import io
import re

import pytest

from apps.study.classsets.tests.factories import answer, classmate, make_quiz
from apps.study.models import ClassSet
from tests.helpers.classes import class_of
from tests.helpers.users import client_for

pytestmark = pytest.mark.django_db
JSON = "application/json"

# The right answers of make_quiz are 1, 0, 1. Scores 3, 2, 1 and 0 of 3.
CLASS = {"alice": [1, 0, 1], "bob": [1, 0, 0], "carla": [0, 1, 1], "dave": [0, 1, 0]}


def answered(client, quiz, answers):
    reply = answer(client, quiz, answers)
    assert reply.status_code == 201, reply.content
    return reply


def report(client, class_set) -> dict:
    return client.get(f"/api/v1/study/class-sets/{class_set.pk}/results").json()


def table(client, class_set, name: str) -> list[dict]:
    url = f"/api/v1/study/class-sets/{class_set.pk}/results.csv?table={name}"
    return list(csv.DictReader(io.StringIO(client.get(url).content.decode())))


@pytest.fixture
def quiz(tess):
    return make_quiz(tess)


@pytest.fixture
def class_of_four(db, quiz):
    class_set = ClassSet.objects.hand_out(quiz.owner, quiz, class_of(quiz.owner))
    for username, answers in CLASS.items():
        answered(client_for(classmate(username)), quiz, answers)
    return class_set


@pytest.mark.parametrize(
    ("grading", "score"), [("first", 33), ("best", 100), ("average", 67), ("latest", 67)]
)
def test_a_students_score_is_graded_by_the_policy_with_every_attempt_listed(
    tess_client, alice_client, quiz, grading, score
):
    class_set = ClassSet.objects.hand_out(
        quiz.owner, quiz, class_of(quiz.owner), attempts=None, grading=grading
    )
    for answers in ([0, 0, 0], [1, 0, 1], [1, 1, 1]):  # 33 %, 100 %, 67 %
        answered(alice_client, quiz, answers)

    [alice] = report(tess_client, class_set)["students"]
    page = tess_client.get(f"/study/class-sets/{class_set.pk}/").content.decode()

    assert alice["score"] == score
    assert [a["percent"] for a in alice["attempts"]] == [33, 100, 67]
    counted = {"first": [1], "best": [2], "average": [1, 2, 3], "latest": [3]}[grading]
    assert [a["number"] for a in alice["attempts"] if a["graded"]] == counted
    assert all(f'data-attempt="alice-{n}"' in page for n in (1, 2, 3))
    assert f"<strong>{score} %</strong>" in page


def test_each_question_shows_its_facility_discrimination_and_option_counts(
    tess_client, class_of_four
):
    questions = report(tess_client, class_of_four)["questions"]

    assert [q["facility"] for q in questions] == [50, 50, 50]
    assert [q["discrimination"] for q in questions] == [0.71, 0.71, 0.0]
    assert [o["chosen"] for o in questions[0]["options"]] == [2, 2, 0, 0]
    nein = questions[1]["options"][1]
    assert (nein["text"], nein["correct"], nein["chosen"]) == ("Nein", False, 2)


def test_a_question_edited_since_the_attempts_is_marked(tess_client, class_of_four, quiz):
    question = quiz.questions.get(position=2)
    question.edit(text="Wo genau liegt die DNA in der Zelle?")

    data = report(tess_client, class_of_four)

    assert data["questions"][2]["older_version"] == 4 and data["questions"][2]["answered"] == 0
    assert data["questions"][2]["facility"] is None
    assert all(row["attempts"][0]["old_version"] for row in data["students"])


def test_the_page_and_the_api_show_the_same_question_figures(tess_client, class_of_four):
    data = report(tess_client, class_of_four)
    page = tess_client.get(f"/study/class-sets/{class_of_four.pk}/").content.decode()

    for q in data["questions"]:
        assert f'data-question="{q["position"]}"' in page
        assert f"Facility {q['facility']} % · discrimination {q['discrimination']}" in page
        for option in q["options"]:
            assert (
                f"{option['text']}{' ✓' if option['correct'] else ''} — chosen {option['chosen']}×"
                in page
            )


def test_the_csv_holds_the_same_attempts_and_questions(tess_client, class_of_four):
    data = report(tess_client, class_of_four)

    attempts = table(tess_client, class_of_four, "attempts")
    questions = table(tess_client, class_of_four, "questions")

    assert {(r["username"], r["percent"], r["graded"]) for r in attempts} == {
        (s["username"], str(s["attempts"][0]["percent"]), "yes") for s in data["students"]
    }
    assert len(questions) == 4 + 2 + 4  # one row per option
    first = [r for r in questions if r["question_number"] == "1"]
    assert [(r["option"], r["chosen"]) for r in first] == [
        (o["text"], str(o["chosen"])) for o in data["questions"][0]["options"]
    ]
    assert {r["facility_percent"] for r in first} == {"50"}
    assert {r["discrimination"] for r in first} == {"0.71"}
    assert (
        tess_client.get(
            f"/study/class-sets/{class_of_four.pk}/results.csv?table=questions"
        ).content.decode()
        == tess_client.get(
            f"/api/v1/study/class-sets/{class_of_four.pk}/results.csv?table=questions"
        ).content.decode()
    )


def first_cell(page: str, row: str) -> str:
    """The text of the first cell of the table row whose tag starts with `row`."""
    cell = re.search(re.escape(row) + r"[^>]*>\s*<td[^>]*>(.*?)</td>", page, re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", cell.group(1)).split())


def test_two_students_of_one_name_are_told_apart_by_their_usernames(tess_client, quiz):
    class_set = ClassSet.objects.hand_out(quiz.owner, quiz, class_of(quiz.owner))
    for username in ("lukas.hoffmann", "lukas.hoffmann2"):
        student = classmate(username)
        student.first_name, student.last_name = "Lukas", "Hoffmann"
        student.save()
        answered(client_for(student), quiz, [1, 0, 1])

    page = tess_client.get(f"/study/class-sets/{class_set.pk}/").content.decode()

    for username in ("lukas.hoffmann", "lukas.hoffmann2"):
        assert first_cell(page, f'<tr data-student="{username}"') == f"Lukas Hoffmann {username}"
        assert first_cell(page, f'<tr data-attempt="{username}-1"') == f"Lukas Hoffmann {username}"
