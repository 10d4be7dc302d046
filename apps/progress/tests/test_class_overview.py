from datetime import timedelta

import pytest
from django.utils import timezone

from apps.progress import tracking
from apps.progress.tests.helpers import live_in, study
from tests.helpers.classes import make_class
from tests.helpers.users import client_for, make_user

# The clock is pinned at MIDDAY (tests/helpers/clock.py) before anyone logs in: these figures
# count back from today, and a session made at the real time could look expired at the pinned
# one.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("midday")]

ATP = {
    "question": "What does ATP store?",
    "source_label": "bio.pdf, p. 3",
    "source_url": "/vault/1/#p3",
}
DNA = {"question": "Where is DNA kept?", "source_label": "bio.pdf, p. 7"}


def class_quiz(student, school_class, score: int, *missed: dict, **fields) -> None:
    """A quiz handed out to `school_class`, submitted by `student` (as Quiz.submit records it)."""
    tracking.record_quiz(
        student,
        score_percent=score,
        difficulty=fields.pop("difficulty", "beginner"),
        class_id=school_class.pk,
        questions_wrong=missed,
        **fields,
    )


@pytest.fixture
def a_class(alice, bob, tess, tess_class):
    now = timezone.now()
    study(alice, now - timedelta(days=2), 45 * 60)
    study(alice, now - timedelta(days=40), 3 * 3600)  # outside the 30 days
    class_quiz(alice, tess_class, 60, ATP, DNA)
    tracking.record_quiz(alice, score_percent=100, difficulty="beginner")  # a quiz of her own
    class_quiz(bob, tess_class, 50, ATP, difficulty="advanced")
    class_quiz(alice, tess_class, 0, ATP, at=now - timedelta(days=31))
    study(tess, now - timedelta(hours=1), 60 * 60)  # the teacher's own study is not the class
    return alice, bob


@pytest.fixture
def carol(db):
    """A student in no class of tess's."""
    student = make_user("carol")
    study(student, timezone.now() - timedelta(days=1), 30 * 60)
    return student


def test_a_teacher_sees_each_students_figures_for_the_last_30_days(tess_client, a_class, carol):
    body = tess_client.get("/api/v1/progress/class").json()
    students = {row["username"]: row for row in body["students"]}
    assert set(students) == {"alice", "bob"}
    assert students["alice"] | {"id": 0} == {
        "id": 0,
        "username": "alice",
        "study_seconds": 45 * 60,
        "sessions": 1,
        "current_streak": 0,
        "quizzes": 2,
        "average_score": 80.0,
    }
    assert (students["bob"]["quizzes"], students["bob"]["average_score"]) == (1, 50.0)


def test_the_questions_missed_most_come_first_with_their_source(tess_client, a_class):
    missed = tess_client.get("/api/v1/progress/class").json()["missed_questions"]
    assert [(m["question"], m["misses"], m["students"]) for m in missed] == [
        ("What does ATP store?", 2, 2),
        ("Where is DNA kept?", 1, 1),
    ]
    assert missed[0]["source_url"] == "/vault/1/#p3"
    page = tess_client.get("/progress/class/").text
    assert '<a class="small" href="/vault/1/#p3">bio.pdf, p. 3</a>' in page
    assert "missed 2 times by 2 students" in page
    assert 'data-student="alice"' in page and 'data-student="tess"' not in page


def test_a_quiz_of_a_students_own_never_shows_what_she_missed(tess_client, alice, tess_class):
    locker = {"question": "My locker code is 4471.", "source_label": "diary.txt"}
    tracking.record_quiz(alice, score_percent=0, difficulty="beginner", questions_wrong=[locker])

    assert tess_client.get("/api/v1/progress/class").json()["missed_questions"] == []
    page = tess_client.get("/progress/class/").text
    assert "4471" not in page and "diary.txt" not in page


def test_each_class_shows_its_own_students_and_the_misses_on_its_own_quizzes(
    tess, tess_class, alice, bob, carol
):
    other = make_class(tess, [carol, alice], name="8a")
    class_quiz(alice, tess_class, 50, ATP)
    class_quiz(carol, other, 50, DNA)
    client = client_for(tess)

    for school_class, students, question in (
        (tess_class, {"alice", "bob"}, ATP),
        (other, {"alice", "carol"}, DNA),
    ):
        body = client.get(f"/api/v1/progress/class?class_id={school_class.pk}").json()
        assert {row["username"] for row in body["students"]} == students
        assert [m["question"] for m in body["missed_questions"]] == [question["question"]]
        page = client.get(f"/progress/class/?class={school_class.pk}").text
        assert f"<h1>Class overview: {school_class.name}</h1>" in page
        assert question["question"] in page


def test_a_teacher_of_several_classes_picks_one(tess, tess_class, carol):
    make_class(tess, [carol], name="8a")
    client = client_for(tess)

    response = client.get("/api/v1/progress/class")
    assert response.status_code == 422
    assert response.json() == {"detail": "You teach several classes: say which one (class_id)."}
    page = client.get("/progress/class/").text
    assert "Pick one of your classes above." in page
    assert f'href="?class={tess_class.pk}"' in page and 'data-student="' not in page


def test_a_class_one_does_not_teach_is_not_found(tess_client, carol):
    elsewhere = make_class(make_user("otto", teacher=True), [carol], name="9c")
    for path in (f"/progress/class/?class={elsewhere.pk}", "/progress/class/?class=x"):
        assert tess_client.get(path).status_code == 404
    response = tess_client.get(f"/api/v1/progress/class?class_id={elsewhere.pk}")
    assert response.status_code == 404


def test_students_cannot_see_the_class_overview(alice_client, a_class):
    assert alice_client.get("/progress/class/").status_code == 403
    response = alice_client.get("/api/v1/progress/class")
    assert response.status_code == 403
    assert response.json() == {"detail": "Only teachers see the class overview."}


def test_only_teachers_get_the_link_to_the_class_overview(alice_client, tess_client):
    assert "/progress/class/" not in alice_client.get("/progress/").text
    assert "/progress/class/" in tess_client.get("/progress/").text


def test_an_empty_class_explains_itself(tess_client, tess):
    assert "No class yet" in tess_client.get("/progress/class/").text
    assert tess_client.get("/api/v1/progress/class").json()["students"] == []
    make_class(tess)
    page = tess_client.get("/progress/class/").text
    assert "No students yet" in page and "No wrong answers yet" in page


def test_each_students_streak_counts_in_their_zone_however_far_back_it_goes(
    tess_client, alice, bob, tess_class
):
    now = timezone.now()  # noon UTC
    for days_ago in range(100):  # longer than the 30 days read first
        tracking.record_message(alice, at=now - timedelta(days=days_ago, minutes=5))
    # Two days ago at 09:00 and 15:00 UTC: one day in UTC, two in Sydney (19:00, then 01:00).
    live_in(bob, "Australia/Sydney")
    for hours in (-3, 3):
        tracking.record_message(bob, at=now - timedelta(days=2) + timedelta(hours=hours))

    students = tess_client.get("/api/v1/progress/class").json()["students"]

    assert {row["username"]: row["current_streak"] for row in students} == {"alice": 100, "bob": 2}
