"""Study generation runs in a worker: the item is "generating" until the task makes it ready or
failed, its card on the page follows it, and a worker that dies leaves the item failed
("interrupted"), never generating for ever. How a generation starts is in test_starting.py."""

from dataclasses import replace
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from apps.study import kinds, tasks
from apps.study.generation_job import INTERRUPTED
from apps.study.models import Deck, Lesson, Mindmap, Quiz
from apps.study.quizzes.generation import fill_quiz, start_quiz
from apps.study.tests.helpers import (
    create_workshop,
    make_studied_document,
    questions,
    run_worker,
)
from apps.study.workshops.generation import fill_lesson, start_lesson
from tests.helpers.isolation import assert_only_owner_can_reach

pytestmark = pytest.mark.django_db

QUIZ = {"num_questions": 5, "difficulty": "beginner", "types": ["mcq", "true_false"]}
HTMX = {"HTTP_HX_REQUEST": "true"}


def test_the_card_says_what_is_made_and_the_page_reloads_into_it_when_ready(
    alice, alice_client, model
):
    make_studied_document(alice)
    model.answer(questions(5))
    response = alice_client.post("/study/quizzes/", QUIZ)
    quiz = Quiz.objects.get()
    status_url = f"/study/generations/quiz/{quiz.pk}/"

    page = alice_client.get(response["Location"]).content.decode()
    listed = alice_client.get("/study/quizzes/").content.decode()
    polled = alice_client.get(status_url, **HTMX)
    run_worker()
    done = alice_client.get(status_url, **HTMX)

    assert response["Location"] == f"/study/quizzes/{quiz.pk}/"
    assert "Making a quiz of 5 questions from your vault" in page
    assert f'hx-get="{status_url}"' in page and 'hx-trigger="load delay:2s"' in page
    assert "being made…" in listed
    assert "Making a quiz of 5 questions" in polled.content.decode()
    assert "HX-Refresh" not in polled
    assert done["HX-Refresh"] == "true" and "hx-get" not in done.content.decode()
    assert "Question 1 of 5" in alice_client.get(response["Location"]).content.decode()
    assert alice_client.get(status_url)["Location"] == f"/study/quizzes/{quiz.pk}/"  # no htmx


def test_the_badge_the_worker_earned_is_shown_when_the_page_reloads_into_the_item(
    alice, alice_client, model
):
    make_studied_document(alice)
    response = alice_client.post("/study/mindmaps/generate/", {"title": "", "method": "extractive"})
    run_worker()
    mindmap = Mindmap.objects.get()
    alice_client.get(f"/study/generations/mindmap/{mindmap.pk}/", **HTMX)

    assert mindmap.status == "ready"
    assert "New badge: Mind Mapper" in alice_client.get(response["Location"]).content.decode()


def test_a_fill_that_returns_its_badges_ends_the_job_without_an_error(alice, model, caplog):
    """A kind's fill ends its item ready and may return what it recorded (a mindmap its
    badges): the job runner takes nothing of that for the row's fields, and logs no failure."""
    make_studied_document(alice)
    client = Client()
    client.force_login(alice)
    client.post("/study/mindmaps/generate/", {"title": "", "method": "extractive"})

    with caplog.at_level("ERROR"):
        run_worker()

    assert Mindmap.objects.get().status == "ready"
    assert not [record for record in caplog.records if record.levelname == "ERROR"]


def test_a_failed_generation_shows_the_reason_and_bob_reaches_none_of_it(
    alice, alice_client, bob_client, model
):
    make_studied_document(alice)
    model.fail_with = (500, "boom")
    alice_client.post("/study/decks/generate/", {"num_cards": "10"})
    run_worker()
    deck = Deck.objects.get()

    card = alice_client.get(f"/study/generations/deck/{deck.pk}/", **HTMX).content.decode()
    api = alice_client.get(f"/api/v1/study/decks/{deck.pk}").json()

    assert deck.status == "failed" and "language model" in deck.error
    assert deck.error in card and "Try again" in card and "hx-get" not in card
    assert api["status"] == "failed" and api["error"] == deck.error
    for url, methods in [
        (f"/study/generations/deck/{deck.pk}/", ["get"]),
        (f"/study/generations/deck/{deck.pk}/retry/", ["post"]),
        (f"/study/decks/{deck.pk}/", ["get"]),
    ]:
        assert_only_owner_can_reach(url, bob_client, methods)
    assert Deck.objects.get().status == "failed"  # bob's retry restarted nothing


def test_anything_unexpected_in_the_worker_ends_the_item_failed(alice, model, monkeypatch):
    make_studied_document(alice)
    mindmap = Mindmap.objects.create(
        owner=alice, title="M", tree={"title": "M", "children": []}, status="generating"
    )

    def broken(mindmap):
        raise RuntimeError("a bug")

    monkeypatch.setitem(kinds.KINDS, "mindmap", replace(kinds.get("mindmap"), fill=broken))
    tasks.make("mindmap", mindmap.pk, worker="study@here")

    mindmap.refresh_from_db()
    assert (mindmap.status, mindmap.error) == ("failed", tasks.UNEXPECTED)


def quiz_taken_by(owner, worker: str, silent_for: float) -> Quiz:
    quiz = Quiz.objects.create(
        owner=owner,
        title="Quiz",
        difficulty="beginner",
        types=["mcq"],
        requested=5,
        status="generating",
        worker=worker,
        heartbeat_at=timezone.now() - timedelta(seconds=silent_for),
    )
    return quiz


def test_a_generation_whose_worker_went_silent_is_shown_interrupted(
    alice, alice_client, settings, midday
):
    settings.STUDY_STALE_SECONDS = 30
    dead = quiz_taken_by(alice, "study@dead", silent_for=31)
    alive = quiz_taken_by(alice, "study@alive", silent_for=29)

    dead_api = alice_client.get(f"/api/v1/study/quizzes/{dead.pk}").json()
    dead_page = alice_client.get(f"/study/quizzes/{dead.pk}/").content.decode()
    alive_api = alice_client.get(f"/api/v1/study/quizzes/{alive.pk}").json()

    assert dead_api["status"] == "failed" and dead_api["error"] == INTERRUPTED
    assert INTERRUPTED in dead_page and "Try again" in dead_page
    assert alive_api["status"] == "generating"


def test_the_page_of_an_item_being_made_says_for_how_long_once_it_is_a_minute(
    alice, alice_client, midday
):
    quiz = quiz_taken_by(alice, "study@alive", silent_for=0)

    just_started = alice_client.get(f"/study/quizzes/{quiz.pk}/").content.decode()
    midday.shift(150)
    Quiz.objects.filter(pk=quiz.pk).update(heartbeat_at=timezone.now())  # its worker is alive
    later = alice_client.get(f"/study/quizzes/{quiz.pk}/").content.decode()

    assert "Being made; with a local model" in just_started
    assert "Being made for 2\xa0minutes; with a local model" in later


def test_a_list_shows_an_item_whose_worker_went_silent_as_failed(
    alice, alice_client, settings, midday
):
    settings.STUDY_STALE_SECONDS = 30
    dead = quiz_taken_by(alice, "study@dead", silent_for=31)

    listed = alice_client.get("/study/quizzes/").content.decode()
    api = alice_client.get("/api/v1/study/quizzes").json()

    assert "could not be made" in listed and "being made…" not in listed
    assert [(quiz["id"], quiz["status"]) for quiz in api] == [(dead.pk, "failed")]


def test_a_message_delivered_again_never_makes_the_item_twice(alice, model, settings, midday):
    settings.STUDY_STALE_SECONDS = 30
    make_studied_document(alice)
    busy = quiz_taken_by(alice, "study@alive", silent_for=1)
    dead = quiz_taken_by(alice, "study@dead", silent_for=60)

    tasks.generate.apply(args=("quiz", busy.pk))  # redelivered while its worker still works
    tasks.generate.apply(args=("quiz", dead.pk))  # redelivered after its worker died

    busy.refresh_from_db()
    dead.refresh_from_db()
    assert not model.chats and not busy.questions.exists() and not dead.questions.exists()
    assert busy.status == "generating"
    assert (dead.status, dead.error) == ("failed", INTERRUPTED)


def test_a_worker_that_finishes_after_its_item_was_interrupted_keeps_nothing(
    alice, model, monkeypatch
):
    make_studied_document(alice)
    model.answer(questions(5))
    quiz, _ = start_quiz(alice, num_questions=5, difficulty="beginner", types=["mcq"])

    def settled_meanwhile(quiz):  # its heartbeat stopped for too long while the model worked
        Quiz.objects.filter(pk=quiz.pk).update(status="failed", error=INTERRUPTED)
        fill_quiz(quiz)

    monkeypatch.setitem(kinds.KINDS, "quiz", replace(kinds.get("quiz"), fill=settled_meanwhile))
    tasks.make("quiz", quiz.pk, worker="study@slow")

    quiz.refresh_from_db()
    assert model.chats  # the model did answer...
    assert (quiz.status, quiz.error) == ("failed", INTERRUPTED)  # ...but a retry starts afresh
    assert not quiz.questions.exists()


def test_a_retried_item_keeps_only_what_its_new_worker_makes(alice, model, monkeypatch):
    make_studied_document(alice)
    model.answer(questions(5))
    quiz, _ = start_quiz(alice, num_questions=5, difficulty="beginner", types=QUIZ["types"])

    def interrupted_and_retried_meanwhile(quiz):
        Quiz.objects.filter(pk=quiz.pk).update(status="failed", error=INTERRUPTED)
        assert Quiz.objects.restart(quiz.pk)  # Try again: generating, for a new worker
        fill_quiz(quiz)

    monkeypatch.setitem(
        kinds.KINDS, "quiz", replace(kinds.get("quiz"), fill=interrupted_and_retried_meanwhile)
    )
    tasks.make("quiz", quiz.pk, worker="study@slow")
    monkeypatch.undo()
    assert not quiz.questions.exists()  # the slow worker's questions were not kept
    tasks.make("quiz", quiz.pk, worker="study@new")

    quiz.refresh_from_db()
    assert quiz.status == "ready" and quiz.questions.count() == 5


def test_a_worker_starting_again_settles_its_generations_and_queues_untaken_ones(
    alice, monkeypatch
):
    mine = quiz_taken_by(alice, "chat@here", silent_for=0)
    others = quiz_taken_by(alice, "chat@elsewhere", silent_for=0)
    untaken = quiz_taken_by(alice, "", silent_for=0)
    queued = []
    monkeypatch.setattr(tasks, "enqueue", lambda kind, pk: queued.append((kind, pk)))

    interrupted, _ = tasks.recover("chat@here")

    statuses = dict(Quiz.objects.values_list("pk", "status"))
    assert interrupted == 1 and queued == [("quiz", untaken.pk)]
    assert statuses == {mine.pk: "failed", others.pk: "generating", untaken.pk: "generating"}


def test_a_lesson_asked_for_twice_is_written_once(
    alice, alice_client, model, django_capture_on_commit_callbacks
):
    make_studied_document(alice)
    model.answer(
        {"title": "Cells", "lessons": [{"title": f"Part {i}", "sources": [1]} for i in range(5)]}
    )
    workshop, _ = create_workshop(alice, num_lessons=5, method="model")
    url = f"/api/v1/study/workshops/{workshop.pk}/lessons/1"
    with django_capture_on_commit_callbacks() as queued:
        first = alice_client.post(url)
        second = alice_client.post(url)
        page = alice_client.post(f"/study/workshops/{workshop.pk}/lessons/1/write/", **HTMX)

    assert first.status_code == second.status_code == 202
    assert first.json()["status"] == "generating"
    assert "Writing lesson 1 of 5" in page.content.decode()
    assert len(queued) == 1
    assert workshop.lessons.get(number=1).status == Lesson.Status.GENERATING


def test_a_lesson_interrupted_while_its_worker_wrote_it_stays_interrupted(
    alice, model, monkeypatch
):
    make_studied_document(alice)
    model.answer(
        {"title": "Cells", "lessons": [{"title": f"Part {i}", "sources": [1]} for i in range(5)]}
    )
    workshop, _ = create_workshop(alice, num_lessons=5, method="model")
    lesson = workshop.lessons.get(number=1)
    assert start_lesson(lesson)
    model.answer("## Energy\n\nMitochondria make it.")

    def settled_meanwhile(lesson):
        Lesson.objects.filter(pk=lesson.pk).update(status="failed", error=INTERRUPTED)
        fill_lesson(lesson)

    monkeypatch.setitem(kinds.KINDS, "lesson", replace(kinds.get("lesson"), fill=settled_meanwhile))
    tasks.make("lesson", lesson.pk, worker="study@slow")

    lesson.refresh_from_db()
    assert (lesson.status, lesson.error, lesson.content) == ("failed", INTERRUPTED, "")


def test_the_card_and_its_retry_need_a_login_and_the_retry_a_csrf_token(alice, client):
    deck = Deck.objects.create(owner=alice, title="D", status="failed", error="boom")
    card = client.get(f"/study/generations/deck/{deck.pk}/")
    retry = client.post(f"/study/generations/deck/{deck.pk}/retry/")
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(alice)
    forged = strict.post(f"/study/generations/deck/{deck.pk}/retry/")

    assert card.status_code == retry.status_code == 302
    assert card["Location"].startswith("/accounts/login/")
    assert forged.status_code == 403
    assert Deck.objects.get().status == "failed"
