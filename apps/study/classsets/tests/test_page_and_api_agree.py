"""Pages and the API hand out, take back, report and study class sets through one rule each."""

import pytest

from apps.study.classsets.tests.factories import (
    class_passages,
    in_shown_order,
    make_deck,
    make_quiz,
    make_workshop,
)
from apps.study.models import CardSchedule, ClassSet, LessonCompletion
from tests.helpers.classes import class_of

pytestmark = pytest.mark.django_db
JSON = "application/json"


def test_page_and_api_hand_out_alike_and_refuse_alike(tess, tess_client, alice_client):
    quiz, deck = make_quiz(tess), make_deck(tess)

    by_page = tess_client.post(
        "/study/class-sets/hand-out/", {"kind": "quiz", "item": quiz.pk, "due": "2026-05-01"}
    )
    by_api = tess_client.post(
        "/api/v1/study/class-sets", {"kind": "deck", "id": deck.pk}, content_type=JSON
    )
    twice_page = tess_client.post("/study/class-sets/hand-out/", {"kind": "quiz", "item": quiz.pk})
    twice_api = tess_client.post(
        "/api/v1/study/class-sets", {"kind": "quiz", "id": quiz.pk}, content_type=JSON
    )
    student_page = alice_client.post("/study/class-sets/hand-out/", {"kind": "quiz", "item": 1})

    page_set, api_set = ClassSet.objects.for_item(quiz).get(), ClassSet.objects.for_item(deck).get()
    assert by_page.status_code == 302 and by_page["Location"] == f"/study/class-sets/{page_set.pk}/"
    assert str(page_set.due) == "2026-05-01"
    assert by_api.status_code == 201 and by_api.json()["id"] == api_set.pk
    assert twice_api.status_code == 409
    assert twice_page.status_code == 302
    followed = tess_client.get(twice_page["Location"]).content.decode()
    assert "This quiz is handed out to 7b already." in followed
    assert student_page.status_code == 302
    assert (
        "Only teachers hand material out" in alice_client.get("/study/class-sets/").content.decode()
    )
    assert ClassSet.objects.count() == 2


def test_the_results_page_and_api_show_the_same_figures(tess, tess_client, alice_client):
    quiz = make_quiz(tess, class_passages(tess))
    class_set = ClassSet.objects.hand_out(tess, quiz, class_of(tess))
    sent = in_shown_order(alice_client, quiz, [1, 1, 1])
    alice_client.post(
        f"/api/v1/study/quizzes/{quiz.pk}/attempts", {"answers": sent}, content_type=JSON
    )

    api = tess_client.get(f"/api/v1/study/class-sets/{class_set.pk}/results").json()
    page = tess_client.get(f"/study/class-sets/{class_set.pk}/").content.decode()

    [alice] = api["students"]
    assert (alice["score"], alice["detail"]) == (67, "2/3")
    assert '<tr data-student="alice">' in page and "67 %" in page and "2/3" in page
    [missed] = api["most_missed"]
    assert missed["text"] in page and missed["passage"]["text"] in page


def test_page_and_api_take_back_alike(tess, tess_client, alice_client):
    quiz, deck = make_quiz(tess), make_deck(tess)
    by_page = ClassSet.objects.hand_out(tess, quiz, class_of(tess))
    by_api = ClassSet.objects.hand_out(tess, deck, class_of(tess))

    tess_client.post(f"/study/class-sets/{by_page.pk}/take-back/")
    tess_client.delete(f"/api/v1/study/class-sets/{by_api.pk}")

    assert not ClassSet.objects.exists()
    assert alice_client.get(f"/study/quizzes/{quiz.pk}/").status_code == 404
    assert alice_client.get(f"/api/v1/study/decks/{deck.pk}").status_code == 404


def test_a_students_card_answers_from_page_and_api_move_their_schedule_only(
    tess, alice, alice_client
):
    deck = make_deck(tess)
    ClassSet.objects.hand_out(tess, deck, class_of(tess))
    first, second = deck.cards.all()

    alice_client.post(f"/study/decks/{deck.pk}/cards/{first.pk}/review/", {"outcome": "got_it"})
    alice_client.post(
        f"/api/v1/study/decks/{deck.pk}/cards/{second.pk}/review",
        {"outcome": "got_it"},
        content_type=JSON,
    )

    assert CardSchedule.objects.filter(student=alice, mastered=True).count() == 2
    assert not deck.cards.filter(mastered=True).exists()
    assert deck.is_mastered(alice) and not deck.is_mastered()


def test_a_students_lessons_completed_from_page_and_api_are_theirs(tess, alice, alice_client):
    workshop = make_workshop(tess, lessons=2)
    ClassSet.objects.hand_out(tess, workshop, class_of(tess))

    page = alice_client.post(f"/study/workshops/{workshop.pk}/lessons/1/complete/")
    alice_client.post(f"/api/v1/study/workshops/{workshop.pk}/lessons/2/complete")

    assert page.status_code == 302
    assert LessonCompletion.objects.filter(student=alice).count() == 2
    lesson = alice_client.get(f"/study/workshops/{workshop.pk}/lessons/2/").content.decode()
    assert "2 of 2 lessons done" in lesson and "Take the recap quiz" not in lesson
