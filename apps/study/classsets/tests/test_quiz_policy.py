"""A class quiz's policy: the attempts allowed, a due date after which no attempt starts (one in
progress may finish within the grace period), shown to the students on the page and the API."""

from datetime import UTC, datetime

import pytest
import time_machine

from apps.progress.models import LocalZone
from apps.study.classsets.tests.factories import answer, hand_out, in_shown_order, make_quiz
from apps.study.models import Attempt, ClassSet

pytestmark = pytest.mark.django_db
JSON = "application/json"
SETS = "/api/v1/study/class-sets"
RIGHT = [1, 0, 1]  # make_quiz's right answers


@pytest.fixture
def quiz(tess):
    return make_quiz(tess)


def test_a_quiz_is_handed_out_with_one_attempt_graded_first_and_answers_after_the_due_date(
    tess_client, alice_client, quiz
):
    made = hand_out(tess_client, "quiz", quiz.pk)

    assert made.status_code == 201
    body = made.json()
    assert (body["attempts"], body["grading"], body["reveal"]) == (1, "first", "after_due")
    [mine] = alice_client.get(SETS).json()
    assert (mine["attempts_left"], mine["answers_shown"]) == (1, False)


def test_a_second_attempt_beyond_the_one_allowed_is_refused_with_a_sentence(
    tess_client, alice_client, quiz
):
    hand_out(tess_client, "quiz", quiz.pk)
    first = answer(alice_client, quiz, RIGHT)

    again = answer(alice_client, quiz, RIGHT)

    assert first.status_code == 201
    assert again.status_code == 409
    assert again.json() == {"detail": "You have used the 1 attempt this quiz allows."}
    assert Attempt.objects.filter(user__username="alice").count() == 1
    page = alice_client.get(f"/study/quizzes/{quiz.pk}/", follow=True).content.decode()
    assert "You have used the 1 attempt this quiz allows." in page
    assert "Retake" not in page
    retake = alice_client.post(f"/study/quizzes/{quiz.pk}/retake/")
    assert retake["Location"] == f"/study/quizzes/{quiz.pk}/attempts/{first.json()['id']}/"


def test_a_teacher_allows_a_number_of_attempts_or_unlimited(
    tess, tess_client, alice_client, bob_client, quiz
):
    hand_out(tess_client, "quiz", quiz.pk, attempts=2)
    assert [answer(alice_client, quiz, RIGHT).status_code for _ in range(3)] == [201, 201, 409]

    other = make_quiz(tess)
    hand_out(tess_client, "quiz", other.pk, attempts=None)
    assert [answer(bob_client, other, RIGHT).status_code for _ in range(4)] == [201] * 4
    listed = {s["item_id"]: s for s in bob_client.get(SETS).json()}
    assert listed[other.pk]["attempts"] is None and listed[other.pk]["attempts_left"] is None


def test_a_policy_that_does_not_fit_is_refused(tess_client, quiz):
    assert hand_out(tess_client, "quiz", quiz.pk, attempts=0).status_code == 422
    assert hand_out(tess_client, "quiz", quiz.pk, grading="highest").status_code == 422
    assert hand_out(tess_client, "quiz", quiz.pk, reveal="sometimes").status_code == 422
    assert not ClassSet.objects.exists()


def test_the_hand_out_form_on_the_page_sets_the_policy(tess_client, quiz):
    tess_client.post(
        "/study/class-sets/hand-out/",
        {"kind": "quiz", "item": quiz.pk, "attempts": 3, "grading": "best", "reveal": "never"},
    )
    page = tess_client.get("/study/quizzes/").content.decode()

    made = ClassSet.objects.get()
    assert (made.attempts, made.grading, made.reveal) == (3, "best", "never")
    assert "3 attempts, graded by best attempt" in page
    tess_client.post(
        "/study/class-sets/hand-out/",
        {"kind": "quiz", "item": make_quiz(made.teacher).pk, "unlimited": "on"},
    )
    assert ClassSet.objects.filter(attempts=None).count() == 1


DUE = "2026-04-15"  # the fixture clock's day (UTC, the site's time zone in tests)


def test_no_attempt_starts_after_the_due_date(tess_client, alice_client, quiz):
    hand_out(tess_client, "quiz", quiz.pk, due=DUE)

    with time_machine.travel(datetime(2026, 4, 16, 0, 1, tzinfo=UTC), tick=False):
        refused = answer(alice_client, quiz, RIGHT)
        page = alice_client.get(f"/study/quizzes/{quiz.pk}/", follow=True).content.decode()

    assert refused.status_code == 409
    assert refused.json() == {
        "detail": "This quiz was due on 15 April 2026: no new attempt starts."
    }
    assert "no new attempt starts" in page
    assert not Attempt.objects.exists()


def test_an_attempt_started_before_the_due_date_finishes_within_the_grace_period(
    tess_client, alice_client, bob_client, quiz, settings
):
    settings.CLASS_SET_GRACE_MINUTES = 10
    hand_out(tess_client, "quiz", quiz.pk, due=DUE)
    with time_machine.travel(datetime(2026, 4, 15, 23, 55, tzinfo=UTC), tick=False):
        alice_client.get(f"/study/quizzes/{quiz.pk}/")
        bob_client.get(f"/study/quizzes/{quiz.pk}/")
        alices_order = in_shown_order(alice_client, quiz, [1, 0, 1])

    with time_machine.travel(datetime(2026, 4, 16, 0, 5, tzinfo=UTC), tick=False):
        url = f"/api/v1/study/quizzes/{quiz.pk}/attempts"
        in_time = alice_client.post(url, {"answers": alices_order}, content_type=JSON)
    with time_machine.travel(datetime(2026, 4, 16, 0, 11, tzinfo=UTC), tick=False):
        late = bob_client.post(f"/study/quizzes/{quiz.pk}/submit/", {}, follow=True)

    assert in_time.status_code == 201 and in_time.json()["percent"] == 100
    assert "the time to finish it is over" in late.content.decode()
    assert not Attempt.objects.filter(user__username="bob", submitted_at__isnull=False).exists()


def test_students_see_the_attempts_left_the_due_date_and_when_answers_show(
    tess_client, alice_client, quiz, midday
):
    hand_out(tess_client, "quiz", quiz.pk, attempts=2, due="2026-04-20")

    player = alice_client.get(f"/study/quizzes/{quiz.pk}/").content.decode()
    listing = alice_client.get("/study/class-sets/").content.decode()
    detail = alice_client.get(f"/api/v1/study/quizzes/{quiz.pk}").json()

    assert "Due 20 Apr 2026" in player and "2 attempts left, this one included" in player
    assert "after the due date (20 April 2026) or once released" in player
    assert "2 attempts left" in listing and "20 Apr 2026" in listing
    assert detail["policy"] == {
        "attempts_allowed": 2,
        "attempts_left": 2,
        "grading": "first",
        "reveal": "after_due",
        "marks": "after_due",  # several attempts: a score per attempt would tell the key
        "due": "2026-04-20",
        "answers_shown": False,
        "marks_shown": False,
    }


def test_the_owner_answers_their_own_quiz_as_before(tess_client, quiz):
    url = f"/api/v1/study/quizzes/{quiz.pk}/attempts"
    replies = [tess_client.post(url, {"answers": [1, 0, 1]}, content_type=JSON) for _ in range(3)]

    assert [r.status_code for r in replies] == [201] * 3
    assert replies[0].json()["results"][0]["correct_index"] == 1
    assert tess_client.get(f"/api/v1/study/quizzes/{quiz.pk}").json()["policy"] is None


def test_a_students_own_time_zone_does_not_move_the_due_date(
    alice, tess_client, alice_client, quiz
):
    LocalZone.objects.create(user=alice, name="Pacific/Pago_Pago")  # still the 15th there
    hand_out(tess_client, "quiz", quiz.pk, due=DUE)

    with time_machine.travel(datetime(2026, 4, 16, 0, 1, tzinfo=UTC), tick=False):
        alice_client.get("/study/class-sets/")  # her zone is active for her requests
        refused = answer(alice_client, quiz, RIGHT)

    assert refused.status_code == 409


@pytest.mark.parametrize(
    ("reveal", "said"),
    [
        ("after_due", "answers shown after the due date, or when I release them"),
        ("never", "answers shown never (unless I release them)"),
        ("after_attempt", "answers shown after each attempt"),
    ],
)
def test_the_teacher_reads_when_the_answers_show_in_a_sentence(tess_client, quiz, reveal, said):
    class_set = ClassSet.objects.get(
        pk=hand_out(tess_client, "quiz", quiz.pk, reveal=reveal).json()["id"]
    )
    for page in (f"/study/class-sets/{class_set.pk}/", f"/study/quizzes/{quiz.pk}/"):
        text = " ".join(tess_client.get(page).content.decode().split())
        assert said in text, page
