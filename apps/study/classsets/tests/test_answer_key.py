"""No answer leaves the server before a class quiz's policy allows it: the player, each answer,
the submission reply, the review page, the API and the exports all ask the one rule
(Seat.answers_shown), and the review page and the API reply agree."""

import re
from datetime import UTC, datetime

import pytest
import time_machine

from apps.study.classsets.tests.factories import in_shown_order, make_quiz
from apps.study.models import ClassSet
from tests.helpers.classes import class_of

pytestmark = pytest.mark.django_db
JSON = "application/json"
MARKERS = ("✓ correct answer", 'class="correct"', "review right", "review wrong", "Because-")
BEFORE_DUE = datetime(2026, 4, 15, 12, 0, tzinfo=UTC)
AFTER_GRACE = datetime(2026, 4, 16, 0, 11, tzinfo=UTC)


@pytest.fixture
def quiz(tess):
    quiz = make_quiz(tess)
    for question in quiz.questions.all():
        question.explanation = f"Because-{question.position}"
        question.save()
    return quiz


def hand_out(quiz, **policy) -> ClassSet:
    return ClassSet.objects.hand_out(quiz.owner, quiz, class_of(quiz.owner), **policy)


def submit_api(client, quiz, answers):
    url = f"/api/v1/study/quizzes/{quiz.pk}/attempts"
    return client.post(url, {"answers": answers}, content_type=JSON)


def key_in_reply(reply: dict) -> bool:
    fields = ("correct_index", "correct", "explanation")
    shown = {row[f] is not None for row in reply["results"] for f in fields}
    assert len(shown) == 1  # all or nothing
    return shown.pop() and reply["answers_shown"]


def key_in_page(html: str) -> bool:
    found = {marker in html for marker in MARKERS[:2] + MARKERS[4:]}
    found.add("review right" in html or "review wrong" in html)
    assert len(found) == 1, html  # all or nothing
    return found.pop()


def routes_before_submitting(client, quiz) -> str:
    """What the player pages, an answer and the API detail send, before any submission."""
    url = f"/study/quizzes/{quiz.pk}/"
    pages = [
        client.get(url).content.decode(),
        client.get(url + "?mode=all").content.decode(),
        client.post(
            url + "answer/", {"position": 0, "choice": 0, "go": 1}, HTTP_HX_REQUEST="true"
        ).content.decode(),
        client.get(f"/api/v1/study/quizzes/{quiz.pk}").content.decode(),
    ]
    return "\n".join(pages)


@pytest.mark.parametrize("reveal", ["after_due", "after_attempt", "never"])
def test_the_player_an_answer_and_the_api_detail_never_carry_the_key(alice_client, quiz, reveal):
    hand_out(quiz, reveal=reveal)

    sent = routes_before_submitting(alice_client, quiz)

    assert not any(marker in sent for marker in MARKERS)
    assert "correct_index" not in sent and "explanation" not in sent


def test_a_blank_submission_returns_no_key_before_the_due_date(alice_client, quiz, midday):
    hand_out(quiz, due=BEFORE_DUE.date())

    reply = submit_api(alice_client, quiz, [None, None, None])

    assert reply.status_code == 201
    assert (reply.json()["correct"], reply.json()["total"], reply.json()["percent"]) == (0, 3, 0)
    assert not key_in_reply(reply.json())
    review = alice_client.get(f"/study/quizzes/{quiz.pk}/attempts/{reply.json()['id']}/")
    assert not key_in_page(review.content.decode())
    assert "The correct answers show after the due date" in review.content.decode()


def test_a_blank_submission_on_the_page_returns_no_key(alice_client, quiz):
    hand_out(quiz)

    review = alice_client.post(f"/study/quizzes/{quiz.pk}/submit/", {}, follow=True)

    assert "0 of 3 correct" in review.content.decode()
    assert not key_in_page(review.content.decode())


def test_after_attempt_shows_the_key_in_the_reply_and_the_review(alice_client, quiz):
    hand_out(quiz, reveal="after_attempt")

    reply = submit_api(alice_client, quiz, [None, None, None]).json()
    review = alice_client.get(f"/study/quizzes/{quiz.pk}/attempts/{reply['id']}/")

    assert key_in_reply(reply) and key_in_page(review.content.decode())


def test_after_due_shows_the_key_once_the_due_date_and_its_grace_period_are_past(
    alice_client, quiz
):
    hand_out(quiz, due=BEFORE_DUE.date())
    with time_machine.travel(BEFORE_DUE, tick=False):
        reply = submit_api(alice_client, quiz, [None, None, None]).json()
    review_url = f"/study/quizzes/{quiz.pk}/attempts/{reply['id']}/"

    with time_machine.travel(datetime(2026, 4, 16, 0, 5, tzinfo=UTC), tick=False):
        in_grace = alice_client.get(review_url).content.decode()
    with time_machine.travel(AFTER_GRACE, tick=False):
        after = alice_client.get(review_url).content.decode()
        detail = alice_client.get(f"/api/v1/study/quizzes/{quiz.pk}").json()

    assert not key_in_reply(reply)
    assert not key_in_page(in_grace)  # a classmate may still be answering
    assert key_in_page(after) and detail["policy"]["answers_shown"] is True


@pytest.mark.parametrize("reveal", ["after_due", "never"])
def test_the_teacher_releasing_the_answers_shows_the_key(tess_client, alice_client, quiz, reveal):
    class_set = hand_out(quiz, reveal=reveal)
    first = submit_api(alice_client, quiz, [None, None, None]).json()
    review_url = f"/study/quizzes/{quiz.pk}/attempts/{first['id']}/"
    before = alice_client.get(review_url).content.decode()

    refused = alice_client.post(f"/api/v1/study/class-sets/{class_set.pk}/release")
    released = tess_client.post(f"/api/v1/study/class-sets/{class_set.pk}/release")

    assert refused.status_code == 404
    assert released.status_code == 200 and released.json()["answers_released_at"]
    assert not key_in_page(before)
    assert key_in_page(alice_client.get(review_url).content.decode())


def test_the_release_button_on_the_results_page_releases_the_answers(tess_client, quiz):
    class_set = hand_out(quiz)
    page = tess_client.get(f"/study/class-sets/{class_set.pk}/").content.decode()

    tess_client.post(f"/study/class-sets/{class_set.pk}/release/")

    assert "Release the answers" in page
    class_set.refresh_from_db()
    assert class_set.released_at is not None


def test_never_keeps_the_key_after_the_due_date(alice_client, quiz):
    hand_out(quiz, reveal="never", due=BEFORE_DUE.date(), attempts=None)
    with time_machine.travel(BEFORE_DUE, tick=False):
        reply = submit_api(alice_client, quiz, [1, 1, 1]).json()

    with time_machine.travel(AFTER_GRACE, tick=False):
        review = alice_client.get(f"/study/quizzes/{quiz.pk}/attempts/{reply['id']}/")

    assert not key_in_reply(reply)
    assert not key_in_page(review.content.decode())


def test_a_student_cannot_export_a_class_quiz_with_its_answers(alice_client, quiz):
    hand_out(quiz, reveal="after_attempt")

    for fmt in ("md", "pdf"):
        assert alice_client.get(f"/study/quizzes/{quiz.pk}/export.{fmt}").status_code == 404
        api = f"/api/v1/study/quizzes/{quiz.pk}/export?format={fmt}"
        assert alice_client.get(api).status_code == 404


def review_rows(html: str) -> list[list[tuple[str, str]]]:
    """(option text, its class) per option of each reviewed question on the page."""
    articles = re.findall(r'<article class="card review.*?</article>', html, re.S)
    rows = []
    for article in articles:
        items = re.findall(r'<li(?: class="([\w ]*)")?>\s*([^<]*?)\s*(?:<span|</li>)', article)
        rows.append([(text.strip(), css) for css, text in items])
    return rows


@pytest.mark.parametrize("reveal", ["after_attempt", "after_due"])
def test_the_review_page_and_the_api_reply_show_the_same_answers(alice_client, quiz, reveal):
    hand_out(quiz, reveal=reveal)
    shown = alice_client.get(f"/api/v1/study/quizzes/{quiz.pk}").json()["questions"]
    reply = submit_api(alice_client, quiz, in_shown_order(alice_client, quiz, [1, 1, None])).json()
    page = alice_client.get(f"/study/quizzes/{quiz.pk}/attempts/{reply['id']}/").content.decode()

    expected = []
    for question, result in zip(shown, reply["results"], strict=True):
        marks = []
        for index, option in enumerate(question["options"]):
            css = [
                name
                for name, mark in [
                    ("correct", result["correct_index"]),
                    ("chosen", result["chosen"]),
                ]
                if index == mark
            ]
            marks.append((option, " ".join(css)))
        expected.append(marks)
    assert review_rows(page) == expected
    assert [r["position"] for r in reply["results"]] == [0, 1, 2]
