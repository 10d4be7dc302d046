"""A class quiz's marks show when its policy says. While they are hidden, a student who changes
one answer per attempt, with every attempt the policy allows, gets the same replies whatever
they answer: from the API, the pages, the player's fragments, their class sets and their
progress; and no reply names a passage a question was cut from. With the marks after each
attempt the same student recovers the whole key, so the comparison can fail."""

import importlib
import re
from collections import defaultdict
from datetime import UTC, datetime

import pytest
import time_machine
from django.apps import apps as django_apps

from apps.progress.models import EarnedBadge, Event
from apps.study.classsets.tests.factories import class_passages, in_shown_order, make_quiz
from apps.study.models import Attempt, ClassSet
from tests.helpers.classes import class_of

pytestmark = pytest.mark.django_db
JSON = "application/json"
RIGHT = [1, 0, 1]  # make_quiz's right answers, in its own order
PASSAGE = "Mitochondrien sind"  # what every passage of the quiz says
# A link to a passage: the reader at it (docs/knowledge-base.md), or the older address.
PASSAGE_LINK = re.compile(r"/vault/documents/\d+/\?[^\"' ]*chunk=|/study/sources/")
BEFORE_DUE = datetime(2026, 4, 15, 12, 0, tzinfo=UTC)
AFTER_GRACE = datetime(2026, 4, 16, 0, 11, tzinfo=UTC)
DUE = BEFORE_DUE.date()
ATTEMPTS = 13


@pytest.fixture
def quiz(tess):
    return make_quiz(tess, class_passages(tess))


def hand_out(quiz, **policy) -> ClassSet:
    return ClassSet.objects.hand_out(quiz.owner, quiz, class_of(quiz.owner), **policy)


# What differs between two attempts and tells nothing of the key: which attempt it is, how
# many are left, the student's own choices and the form's token.
KNOWN_ANYWAY = {"id", "attempts_left", "chosen", "submitted_at", "last_activity"}


def blind_json(value):
    if isinstance(value, dict):
        return {k: blind_json(v) for k, v in value.items() if k not in KNOWN_ANYWAY}
    if isinstance(value, list):
        rows = [blind_json(v) for v in value]
        return [row for i, row in enumerate(rows) if row not in rows[:i]]  # one per kind
    return value


def blind_html(html: str) -> str:
    html = re.sub(r'csrfmiddlewaretoken" value="[^"]*"', "csrf", html)
    html = re.sub(r'"X-CSRFToken": "[^"]*"', "csrf", html)
    html = re.sub(r"/attempts/\d+/", "/attempts/N/", html)
    html = re.sub(r"\d+ attempts? left", "N attempts left", html)
    html = re.sub(r'<form method="post" action="/study/quizzes/\d+/retake/">.*?</form>', "", html)
    html = re.sub(r" (checked|autofocus)", "", html)  # the player: one's own choices
    html = html.replace(' class="chosen"', "").replace(
        '<span class="small"> · your answer</span>', ""
    )
    return re.sub(r"\s+", " ", html)


def chunk_ids_in(value) -> list:
    if isinstance(value, dict):
        found = [value["chunk_ids"]] if "chunk_ids" in value else []
        return found + [ids for v in value.values() for ids in chunk_ids_in(v)]
    if isinstance(value, list):
        return [ids for v in value for ids in chunk_ids_in(v)]
    return []


class CuriousStudent:
    """Alice, answering through every route and keeping every reply, by route."""

    def __init__(self, client, quiz):
        self.client, self.quiz = client, quiz
        self.url = f"/study/quizzes/{quiz.pk}/"
        self.api = f"/api/v1/study/quizzes/{quiz.pk}"
        self.json = defaultdict(list)
        self.html = defaultdict(list)
        self.options = [len(q["options"]) for q in client.get(self.api).json()["questions"]]

    def attempt(self, answers: list[int]) -> int | None:
        """Hand `answers` (in her own order) in, alternately on the page and through the API,
        looking at everything afterwards; the percent she was told, if any."""
        self.html["player"].append(self.client.get(self.url + "?mode=all").content.decode())
        fragment = self.client.post(
            self.url + "answer/",
            {"position": 0, "choice": answers[0], "go": 1, "mode": "one"},
            HTTP_HX_REQUEST="true",
        )
        self.html["player fragment"].append(fragment.content.decode())
        if len(self.json["reply"]) == len(self.html["submitted"]):
            reply = self.client.post(
                f"{self.api}/attempts", {"answers": answers}, content_type=JSON
            )
            assert reply.status_code == 201, reply.content
            self.json["reply"].append(reply.json())
            told = reply.json()["percent"]
        else:
            fields = {f"q{i}": str(choice) for i, choice in enumerate(answers)}
            page = self.client.post(self.url + "submit/", fields, follow=True).content.decode()
            self.html["submitted"].append(page)
            said = re.search(r"\((\d+) %\)", page)
            told = int(said.group(1)) if said else None
        self.look_around()
        return told

    def look_around(self) -> None:
        latest = Attempt.objects.filter(user__username="alice", quiz=self.quiz).first()
        pages = {
            "review": f"{self.url}attempts/{latest.pk}/",
            "class sets page": "/study/class-sets/",
            "progress": "/progress/",
        }
        for name, url in pages.items():
            self.html[name].append(self.client.get(url).content.decode())
        routes = {
            "quiz": self.api,
            "class sets": "/api/v1/study/class-sets",
            "badges": "/api/v1/progress/achievements",
        }
        for name, url in routes.items():
            self.json[name].append(self.client.get(url).json())

    def probe(self) -> list[int] | None:
        """Change one answer per attempt from all-first-options; then hand in what she found
        until no attempt is left. The key, in her order, when the replies told it."""
        base = [0] * len(self.options)
        scores: dict[tuple, int | None] = {}
        told = []  # per question, the score with each of its options
        for position, count in enumerate(self.options):
            told.append([])
            for option in range(count):
                tried = tuple(base[:position] + [option] + base[position + 1 :])
                if tried not in scores:
                    scores[tried] = self.attempt(list(tried))
                told[-1].append(scores[tried])
        key = None
        if None not in scores.values():  # the right option scores highest
            key = [options.index(max(options)) for options in told]
        while len(self.json["reply"]) + len(self.html["submitted"]) < ATTEMPTS:
            self.attempt(key or base)
        return key


@pytest.mark.parametrize("marks", ["after_due", "never"])
def test_a_student_changing_one_answer_per_attempt_learns_nothing_while_the_marks_are_hidden(
    alice_client, quiz, marks
):
    hand_out(quiz, attempts=ATTEMPTS, reveal="never", marks=marks, due=DUE)
    with time_machine.travel(BEFORE_DUE, tick=False):
        alice = CuriousStudent(alice_client, quiz)
        key = alice.probe()
        refused = alice_client.post(
            f"{alice.api}/attempts", {"answers": [0, 0, 0]}, content_type=JSON
        )

    assert key is None and refused.status_code == 409
    for route, replies in alice.json.items():
        assert len({repr(blind_json(reply)) for reply in replies}) == 1, route
        assert PASSAGE not in repr(replies) and not PASSAGE_LINK.search(repr(replies)), route
        assert all(ids == [] for reply in replies for ids in chunk_ids_in(reply)), route
    for route, pages in alice.html.items():
        assert len({blind_html(page) for page in pages}) == 1, route
        assert not any(PASSAGE in page or PASSAGE_LINK.search(page) for page in pages), route
    assert all(r["correct"] is None and r["percent"] is None for r in alice.json["reply"])
    assert "biologie.txt" in alice.html["review"][0]  # the document may show, not the passage
    assert not Event.objects.filter(user__username="alice").exists()


def test_with_the_marks_after_each_attempt_the_same_student_recovers_the_key(alice_client, quiz):
    hand_out(quiz, attempts=ATTEMPTS, reveal="never", marks="after_attempt", due=DUE)
    with time_machine.travel(BEFORE_DUE, tick=False):
        alice = CuriousStudent(alice_client, quiz)
        key = alice.probe()
        right = in_shown_order(alice_client, quiz, RIGHT)

    assert key == right
    assert alice.json["reply"][-1]["percent"] == 100
    assert len({repr(blind_json(reply)) for reply in alice.json["reply"]}) > 1
    assert len({blind_html(page) for page in alice.html["review"]}) > 1
    assert all(ids == [] for ids in chunk_ids_in(alice.json["quiz"]))  # the key stays hidden


def test_the_teacher_sees_every_mark_while_the_student_sees_none(tess_client, alice_client, quiz):
    class_set = hand_out(quiz, attempts=3, reveal="never", due=DUE)
    with time_machine.travel(BEFORE_DUE, tick=False):
        sent = in_shown_order(alice_client, quiz, RIGHT)
        reply = alice_client.post(
            f"/api/v1/study/quizzes/{quiz.pk}/attempts", {"answers": sent}, content_type=JSON
        ).json()
        results = tess_client.get(f"/api/v1/study/class-sets/{class_set.pk}/results").json()
        page = tess_client.get(f"/study/class-sets/{class_set.pk}/").content.decode()
        [mine] = alice_client.get("/api/v1/study/class-sets").json()

    assert class_set.marks == "after_due"  # the default with several attempts
    assert (reply["correct"], reply["total"], reply["percent"]) == (None, 3, None)
    assert reply["marks_shown"] is False and reply["badges"] == []
    [alices] = [row for row in results["students"] if row["username"] == "alice"]
    assert alices["score"] == 100 and alices["attempts"][0]["correct"] == 3
    assert "100 %" in page
    assert mine["mine"]["score"] is None and mine["mine"]["detail"] == ""
    assert mine["marks_shown"] is False and mine["marks"] == "after_due"


def test_the_marks_and_the_badges_they_earn_come_after_the_due_date(alice, alice_client, quiz):
    hand_out(quiz, attempts=2, due=DUE)
    with time_machine.travel(BEFORE_DUE, tick=False):
        sent = in_shown_order(alice_client, quiz, RIGHT)
        reply = alice_client.post(
            f"/api/v1/study/quizzes/{quiz.pk}/attempts", {"answers": sent}, content_type=JSON
        ).json()
    review_url = f"/study/quizzes/{quiz.pk}/attempts/{reply['id']}/"
    perfect = EarnedBadge.objects.filter(user=alice, badge__code="perfect_score")

    with time_machine.travel(datetime(2026, 4, 16, 0, 5, tzinfo=UTC), tick=False):
        in_grace = alice_client.get(review_url).content.decode()
        in_grace_badge = perfect.exists()
    with time_machine.travel(AFTER_GRACE, tick=False):
        after = alice_client.get(review_url).content.decode()
        again = alice_client.get(review_url).content.decode()
        detail = alice_client.get(f"/api/v1/study/quizzes/{quiz.pk}").json()

    assert "Handed in" in in_grace and "correct (" not in in_grace and not in_grace_badge
    said = "Your marks and the correct answers show after the due date (15 April 2026) or once"
    assert said in in_grace
    assert "3 of 3 correct (100 %)" in after and "New badge: Perfect Score" in after
    assert "New badge" not in again  # recorded once
    [event] = Event.objects.filter(user=alice, kind=Event.Kind.QUIZ)
    assert event.score_percent == 100 and event.at == BEFORE_DUE  # when it was handed in
    assert detail["attempts"][0]["percent"] == 100 and detail["policy"]["marks_shown"] is True


def test_releasing_the_answers_shows_the_marks_kept_never(tess_client, alice_client, quiz):
    class_set = hand_out(quiz, attempts=2, reveal="never", marks="never")
    reply = alice_client.post(
        f"/api/v1/study/quizzes/{quiz.pk}/attempts", {"answers": [0, 0, 0]}, content_type=JSON
    ).json()
    review_url = f"/study/quizzes/{quiz.pk}/attempts/{reply['id']}/"
    before = alice_client.get(review_url).content.decode()

    tess_client.post(f"/api/v1/study/class-sets/{class_set.pk}/release")
    after = alice_client.get(review_url).content.decode()

    assert reply["percent"] is None and "correct (" not in before
    assert "Your marks and the correct answers show only if your teacher releases" in before
    assert re.search(r"\d of 3 correct \(\d+ %\)", after)
    assert Event.objects.filter(user__username="alice", kind=Event.Kind.QUIZ).count() == 1


@pytest.mark.parametrize(
    ("policy", "marks"),
    [
        ({}, "after_attempt"),  # one attempt: no retake can use its score
        ({"attempts": 3}, "after_due"),
        ({"attempts": None}, "after_due"),
        ({"attempts": 3, "reveal": "never"}, "after_due"),
        ({"attempts": 3, "reveal": "after_attempt"}, "after_attempt"),  # the answers tell them
        ({"attempts": 3, "marks": "never", "reveal": "never"}, "never"),
    ],
)
def test_the_marks_default_to_after_each_attempt_only_with_one_attempt(
    tess_client, quiz, policy, marks
):
    body = {"kind": "quiz", "item_id": quiz.pk, **policy}
    made = tess_client.post("/api/v1/study/class-sets", body, content_type=JSON)

    assert made.status_code == 201 and made.json()["marks"] == marks


def test_marks_asked_for_later_than_the_answers_show_with_them(tess_client, quiz):
    body = {"kind": "quiz", "item_id": quiz.pk, "reveal": "after_attempt", "marks": "never"}
    made = tess_client.post("/api/v1/study/class-sets", body, content_type=JSON)

    assert made.status_code == 201 and made.json()["marks"] == "after_attempt"


def test_the_hand_out_form_takes_the_marks_and_the_teacher_reads_them(tess_client, quiz):
    form = {"kind": "quiz", "item": quiz.pk, "attempts": 1, "reveal": "after_due"}
    tess_client.post("/study/class-sets/hand-out/", {**form, "marks": "after_due"})
    class_set = ClassSet.objects.get()

    page = " ".join(tess_client.get(f"/study/class-sets/{class_set.pk}/").content.decode().split())

    assert class_set.marks == "after_due"
    assert "marks shown after the due date, or when I release the answers" in page


def test_the_passage_shows_with_the_answers_after_a_first_attempt(alice_client, quiz):
    hand_out(quiz, attempts=2, reveal="after_attempt")
    api = f"/api/v1/study/quizzes/{quiz.pk}"

    before = alice_client.get(api).json()
    reply = alice_client.post(f"{api}/attempts", {"answers": [0, 0, 0]}, content_type=JSON).json()
    after = alice_client.get(api).json()
    review = alice_client.get(f"/study/quizzes/{quiz.pk}/attempts/{reply['id']}/")

    assert all(q["chunk_ids"] == [] for q in before["questions"])
    assert all(len(q["chunk_ids"]) == 1 for q in after["questions"])
    assert all(len(row["chunk_ids"]) == 1 for row in reply["results"])
    assert PASSAGE_LINK.search(review.content.decode())


def test_the_sets_handed_out_before_keep_their_marks_after_each_attempt_only_with_one(tess):
    upgrade = importlib.import_module("apps.study.migrations.0014_marks_shown_as_before")
    policies = [(1, "after_due"), (3, "after_due"), (None, "never"), (3, "after_attempt")]
    made = [hand_out(make_quiz(tess), attempts=a, reveal=r) for a, r in policies]
    ClassSet.objects.update(marks="after_attempt")  # the new column, as added

    upgrade.marks_after_the_due_date_for_several_attempts(django_apps, None)

    marks = [ClassSet.objects.get(pk=class_set.pk).marks for class_set in made]
    assert marks == ["after_attempt", "after_due", "after_due", "after_attempt"]
