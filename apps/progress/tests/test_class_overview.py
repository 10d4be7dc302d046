from datetime import timedelta

import pytest
from django.utils import timezone

from apps.progress import tracking
from apps.progress.tests.helpers import live_in, study

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


@pytest.fixture
def a_class(alice, bob, tess):
    now = timezone.now()
    study(alice, now - timedelta(days=2), 45 * 60)
    study(alice, now - timedelta(days=40), 3 * 3600)  # outside the 30 days
    tracking.record_quiz(alice, score_percent=60, difficulty="beginner", questions_wrong=[ATP, DNA])
    tracking.record_quiz(alice, score_percent=100, difficulty="beginner")
    tracking.record_quiz(bob, score_percent=50, difficulty="advanced", questions_wrong=[ATP])
    tracking.record_quiz(
        alice,
        score_percent=0,
        difficulty="beginner",
        questions_wrong=[ATP],
        at=now - timedelta(days=31),
    )
    study(tess, now - timedelta(hours=1), 60 * 60)  # the teacher's own study is not the class
    return alice, bob


def test_a_teacher_sees_each_students_figures_for_the_last_30_days(tess_client, a_class):
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


def test_students_cannot_see_the_class_overview(alice_client, a_class):
    assert alice_client.get("/progress/class/").status_code == 403
    response = alice_client.get("/api/v1/progress/class")
    assert response.status_code == 403
    assert response.json() == {"detail": "Only teachers see the class overview."}


def test_only_teachers_get_the_link_to_the_class_overview(alice_client, tess_client):
    assert "/progress/class/" not in alice_client.get("/progress/").text
    assert "/progress/class/" in tess_client.get("/progress/").text


def test_an_empty_class_explains_itself(tess_client):
    page = tess_client.get("/progress/class/").text
    assert "No students yet" in page and "No wrong answers yet" in page


def test_each_students_streak_counts_in_their_zone_however_far_back_it_goes(
    tess_client, alice, bob
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
