"""Studying a class set: a student reads a class quiz, deck, mindmap or workshop but cannot change
it, and everything they do with it (attempts, card schedules, lessons, arrangements, badges)
is kept in rows of their own."""

import re

import pytest

from apps.progress.models import Event
from apps.study.classsets.tests.factories import (
    answer,
    class_passages,
    in_shown_order,
    make_deck,
    make_mindmap,
    make_quiz,
    make_workshop,
)
from apps.study.models import (
    Attempt,
    CardReview,
    CardSchedule,
    ClassSet,
    LessonCompletion,
    MindmapArrangement,
)
from tests.helpers.classes import class_of

pytestmark = pytest.mark.django_db
JSON = "application/json"


@pytest.fixture
def quiz(tess):
    return make_quiz(tess, class_passages(tess))


@pytest.fixture
def class_quiz(quiz):
    ClassSet.objects.hand_out(quiz.owner, quiz, class_of(quiz.owner))
    return quiz


# --- Read-only content -----------------------------------------------------------------------


def test_a_student_reads_a_class_deck_but_cannot_change_it(tess, alice_client):
    deck = make_deck(tess)
    ClassSet.objects.hand_out(tess, deck, class_of(tess))
    card = deck.cards.first()
    api = f"/api/v1/study/decks/{deck.pk}"

    assert alice_client.get(api).status_code == 200
    assert alice_client.get(f"/study/decks/{deck.pk}/").status_code == 200
    refusals = [
        alice_client.patch(api, {"title": "Meins"}, content_type=JSON),
        alice_client.delete(api),
        alice_client.post(f"{api}/cards", {"front": "a", "back": "b"}, content_type=JSON),
        alice_client.patch(f"{api}/cards/{card.pk}", {"front": "x"}, content_type=JSON),
        alice_client.delete(f"{api}/cards/{card.pk}"),
        alice_client.post(f"{api}/refresh"),
        alice_client.get(f"{api}/export.csv"),
        alice_client.post(f"/study/decks/{deck.pk}/rename/", {"title": "Meins"}),
        alice_client.post(f"/study/decks/{deck.pk}/delete/"),
        alice_client.post(f"/study/decks/{deck.pk}/cards/", {"front": "a", "back": "b"}),
        alice_client.post(f"/study/decks/{deck.pk}/cards/{card.pk}/", {"front": "x", "back": "y"}),
        alice_client.post(f"/study/decks/{deck.pk}/cards/{card.pk}/delete/"),
    ]
    assert [r.status_code for r in refusals] == [404] * len(refusals)
    deck.refresh_from_db()
    assert deck.title == "Organellen" and deck.cards.count() == 2
    page = alice_client.get(f"/study/decks/{deck.pk}/").content.decode()
    assert "Delete deck" not in page and "Add a card" not in page


def test_a_student_answers_a_class_quiz_but_cannot_change_or_export_it(alice_client, class_quiz):
    api = f"/api/v1/study/quizzes/{class_quiz.pk}"
    refusals = [
        alice_client.patch(f"{api}/questions/0", {"question": "Neu?"}, content_type=JSON),
        alice_client.delete(f"{api}/questions/0"),
        alice_client.get(f"{api}/export"),  # the answer key
        alice_client.post(f"{api}/refresh"),
        alice_client.get(f"/study/quizzes/{class_quiz.pk}/export.md"),
    ]
    assert [r.status_code for r in refusals] == [404] * len(refusals)
    assert alice_client.get(api).status_code == 200
    assert class_quiz.questions.get(position=0).text == "Was ist das Kraftwerk der Zelle?"


def test_a_student_arranges_a_class_mindmap_but_cannot_rename_or_delete_it(tess, alice_client):
    mindmap = make_mindmap(tess)
    ClassSet.objects.hand_out(tess, mindmap, class_of(tess))
    api = f"/api/v1/study/mindmaps/{mindmap.pk}"

    refusals = [
        alice_client.patch(api, {"title": "Meins"}, content_type=JSON),
        alice_client.delete(api),
        alice_client.post(f"{api}/refresh"),
        alice_client.post(f"/study/mindmaps/{mindmap.pk}/rename/", {"title": "Meins"}),
        alice_client.post(f"/study/mindmaps/{mindmap.pk}/delete/"),
    ]
    assert [r.status_code for r in refusals] == [404] * len(refusals)
    assert alice_client.get(f"{api}.svg").status_code == 200
    mindmap.refresh_from_db()
    assert mindmap.title == "Zelle"


def test_a_student_completes_class_lessons_but_the_recap_and_exports_stay_the_teachers(
    tess, alice_client
):
    workshop = make_workshop(tess)
    ClassSet.objects.hand_out(tess, workshop, class_of(tess))

    refusals = [
        alice_client.post(f"/api/v1/study/workshops/{workshop.pk}/recap"),
        alice_client.post(f"/api/v1/study/workshops/{workshop.pk}/refresh"),
        alice_client.get(f"/api/v1/study/workshops/{workshop.pk}/export"),
        alice_client.post(f"/study/workshops/{workshop.pk}/recap/"),
    ]
    assert [r.status_code for r in refusals] == [404] * len(refusals)
    assert alice_client.get(f"/study/workshops/{workshop.pk}/lessons/1/").status_code == 200


# --- Everything a student does is theirs -----------------------------------------------------


def test_each_student_sees_only_their_own_attempts(
    tess_client, alice_client, bob_client, class_quiz
):
    mine = answer(alice_client, class_quiz, [1, 0, 1]).json()
    bobs = answer(bob_client, class_quiz, [0, 1, 0]).json()

    assert (mine["percent"], bobs["percent"]) == (100, 0)
    as_alice = alice_client.get(f"/api/v1/study/quizzes/{class_quiz.pk}").json()
    assert [a["id"] for a in as_alice["attempts"]] == [mine["id"]]
    assert tess_client.get(f"/api/v1/study/quizzes/{class_quiz.pk}").json()["attempts"] == []
    url = f"/study/quizzes/{class_quiz.pk}/attempts/"
    assert alice_client.get(f"{url}{bobs['id']}/").status_code == 404
    assert alice_client.get(f"{url}{mine['id']}/").status_code == 200
    assert set(Attempt.objects.values_list("user__username", flat=True)) == {"alice", "bob"}


def test_a_student_plays_a_class_quiz_on_the_page_and_resumes_their_own_attempt(
    alice_client, bob_client, class_quiz
):
    url = f"/study/quizzes/{class_quiz.pk}/"
    shown = in_shown_order(alice_client, class_quiz, [1, 0, 1])
    alice_client.post(url + "answer/", {"position": 0, "choice": shown[0], "go": 1})

    assert "Question 2 of 3" in alice_client.get(url).content.decode()
    assert "Question 1 of 3" in bob_client.get(url).content.decode()
    submitted = alice_client.post(url + "submit/", {"q1": shown[1], "q2": shown[2]})
    assert submitted.status_code == 302
    review = alice_client.get(submitted["Location"]).content.decode()
    assert "3 of 3 correct" in review and "Export" not in review


def test_one_card_keeps_one_schedule_per_student(tess, alice, alice_client, bob_client, midday):
    deck = make_deck(tess)
    ClassSet.objects.hand_out(tess, deck, class_of(tess))
    card = deck.cards.first()
    teachers_due = card.due_at
    url = f"/api/v1/study/decks/{deck.pk}/cards/{card.pk}/review"

    alices = alice_client.post(url, {"outcome": "got_it"}, content_type=JSON).json()
    bobs = bob_client.post(url, {"outcome": "review"}, content_type=JSON).json()

    assert alices["card"]["mastered"] is True and bobs["card"]["mastered"] is False
    assert alices["card"]["due_at"] != bobs["card"]["due_at"]
    assert CardSchedule.objects.count() == 2
    card.refresh_from_db()
    assert (card.due_at, card.mastered, card.last_review_at) == (teachers_due, False, None)
    # Bob's answer moved his schedule only.
    again = alice_client.get(f"/api/v1/study/decks/{deck.pk}").json()
    assert again["cards"][0]["due_at"] == alices["card"]["due_at"]
    assert again["mastered_count"] == 1
    assert set(CardReview.objects.values_list("student__username", flat=True)) == {"alice", "bob"}
    assert Event.objects.filter(user=alice, kind=Event.Kind.CARD_FLIP).count() == 1


def test_a_student_studies_a_class_deck_on_the_page_with_their_own_due_cards(
    tess, alice_client, bob_client
):
    deck = make_deck(tess)
    ClassSet.objects.hand_out(tess, deck, class_of(tess))
    first = deck.cards.first()
    study = f"/study/decks/{deck.pk}/study/"

    alice_client.post(f"/study/decks/{deck.pk}/cards/{first.pk}/review/", {"outcome": "got_it"})

    assert "1 due now · 1 of 2 mastered" in alice_client.get(study).content.decode()
    assert "2 due now · 0 of 2 mastered" in bob_client.get(study).content.decode()


def test_lessons_completed_and_badges_are_each_students_own(tess, alice, alice_client, bob_client):
    workshop = make_workshop(tess, lessons=2)
    ClassSet.objects.hand_out(tess, workshop, class_of(tess))
    url = f"/api/v1/study/workshops/{workshop.pk}/lessons"

    first = alice_client.post(f"{url}/1/complete").json()
    done = alice_client.post(f"{url}/2/complete").json()

    assert first["workshop_completed"] is False and "lesson_learned" in first["badges"]
    assert done["workshop_completed"] is True and "workshop_graduate" in done["badges"]
    assert LessonCompletion.objects.filter(student=alice).count() == 2
    assert not workshop.lessons.filter(completed_at__isnull=False).exists()
    workshop.refresh_from_db()
    assert workshop.completed_at is None
    bobs = bob_client.get(f"/api/v1/study/workshops/{workshop.pk}").json()
    assert [lesson["completed_at"] for lesson in bobs["lessons"]] == [None, None]
    assert bobs["completed_at"] is None
    assert Event.objects.filter(user=alice, kind=Event.Kind.WORKSHOP).count() == 1


def test_a_students_mindmap_arrangement_is_their_own(tess, alice_client, bob_client):
    mindmap = make_mindmap(tess)
    mindmap.move_node("r.0", "lr", 10, 20)
    ClassSet.objects.hand_out(tess, mindmap, class_of(tess))
    api = f"/api/v1/study/mindmaps/{mindmap.pk}"

    moved = alice_client.post(
        f"{api}/positions", {"node": "r.1", "x": 5, "y": 6}, content_type=JSON
    ).json()
    alice_client.post(f"/study/mindmaps/{mindmap.pk}/layout/", {"layout": "radial"})

    assert moved["positions"] == {"lr": {"r.0": [10, 20], "r.1": [5, 6]}}
    assert alice_client.get(api).json()["layout"] == "radial"
    assert bob_client.get(api).json()["positions"] == {"lr": {"r.0": [10.0, 20.0]}}
    mindmap.refresh_from_db()
    assert mindmap.positions == {"lr": {"r.0": [10, 20]}} and mindmap.layout == "lr"
    assert MindmapArrangement.objects.get().student.username == "alice"
    page = alice_client.get(f"/study/mindmaps/{mindmap.pk}/").content.decode()
    assert 'data-layout="radial"' in page and "Delete mindmap" not in page
    assert 'data-layout="lr"' in bob_client.get(f"/study/mindmaps/{mindmap.pk}/").content.decode()


def test_a_quiz_attempt_counts_for_the_students_progress(alice, alice_client, class_quiz):
    badges = answer(alice_client, class_quiz, [1, 0, 1]).json()["badges"]

    assert "first_quiz" in badges and "perfect_score" in badges
    assert Event.objects.get(kind=Event.Kind.QUIZ).user == alice


def test_a_class_quiz_attempt_counts_for_its_class_with_what_was_missed(
    alice, alice_client, tess_client, class_quiz
):
    answer(alice_client, class_quiz, [0, None, 1])  # the first wrong, the second blank

    event = Event.objects.get(kind=Event.Kind.QUIZ)
    assert event.school_class == class_of(class_quiz.owner)
    assert sorted(event.missed_questions.values_list("question", flat=True)) == [
        "Haben Pflanzen Zellwände?",
        "Was ist das Kraftwerk der Zelle?",
    ]
    # The question's passage, marked in its document (docs/knowledge-base.md), which the class's
    # teacher, who reads what is missed most, opens too.
    link = event.missed_questions.first().source_url
    assert re.fullmatch(r"/vault/documents/\d+/\?page=\d+&chunk=\d+", link)
    assert tess_client.get(link).status_code == 200
