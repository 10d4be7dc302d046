"""Class sets: a teacher hands a quiz, deck, mindmap or workshop to the class and takes it back;
who reaches what; the teacher sees each student's figures. How a student studies a set in rows of
their own is in test_studying_a_class_set.py."""

import pytest

from apps.progress.models import Event
from apps.study.classsets.tests.factories import (
    answer,
    class_passages,
    hand_out,
    make_deck,
    make_mindmap,
    make_quiz,
)
from apps.study.models import (
    ClassSet,
    Deck,
)
from apps.study.tests.helpers import make_studied_document, questions
from tests.helpers.classes import class_of
from tests.helpers.users import client_for, make_user

pytestmark = pytest.mark.django_db
JSON = "application/json"


@pytest.fixture
def theo(db):
    return make_user("theo", teacher=True)


@pytest.fixture
def theo_client(theo):
    return client_for(theo)


@pytest.fixture
def quiz(tess):
    return make_quiz(tess, class_passages(tess))


@pytest.fixture
def class_quiz(quiz):
    ClassSet.objects.hand_out(quiz.owner, quiz, class_of(quiz.owner))
    return quiz


# --- Handing out and taking back ------------------------------------------------------------


def test_a_teacher_hands_out_a_quiz_and_students_find_it_from_their_teacher(
    tess_client, alice_client, quiz
):
    made = hand_out(tess_client, "quiz", quiz.pk, note="Bis Freitag", due="2026-04-17")

    assert made.status_code == 201
    body = made.json()
    assert body["kind"] == "quiz" and body["item_id"] == quiz.pk and body["note"] == "Bis Freitag"
    assert body["due"] == "2026-04-17" and body["url"] == f"/study/quizzes/{quiz.pk}/"
    assert body["mine"] is None  # the teacher has no figures of their own
    [listed] = alice_client.get("/api/v1/study/class-sets").json()
    assert listed["id"] == body["id"] and listed["title"] == "Zellbiologie"
    assert listed["mine"]["started"] is False
    page = alice_client.get("/study/class-sets/").content.decode()
    assert "From your teacher" in page and "Zellbiologie" in page and "Bis Freitag" in page


def test_a_student_cannot_hand_out_even_their_own_quiz(alice, alice_client, tess_client):
    own = make_quiz(alice)

    by_api = hand_out(alice_client, "quiz", own.pk)
    by_page = alice_client.post("/study/class-sets/hand-out/", {"kind": "quiz", "item": own.pk})

    assert by_api.status_code == 403
    assert by_api.json() == {"detail": "Only teachers hand material out to the class."}
    assert by_page.status_code == 302
    assert not ClassSet.objects.exists()
    assert tess_client.get(f"/api/v1/study/quizzes/{own.pk}").status_code == 404


def test_a_teacher_hands_out_only_their_own_items_and_each_once(tess_client, theo, quiz):
    theos = make_deck(theo)

    assert hand_out(tess_client, "deck", theos.pk).status_code == 404
    assert hand_out(tess_client, "quiz", quiz.pk).status_code == 201
    again = hand_out(tess_client, "quiz", quiz.pk)
    assert again.status_code == 409 and again.json() == {
        "detail": "This quiz is handed out to 7b already."
    }
    assert ClassSet.objects.count() == 1


def test_taking_a_set_back_hides_it_and_handing_it_out_again_brings_the_results_back(
    tess, tess_client, alice_client, quiz
):
    class_set = hand_out(tess_client, "quiz", quiz.pk).json()
    assert answer(alice_client, quiz, [1, 0, 1]).status_code == 201

    assert tess_client.delete(f"/api/v1/study/class-sets/{class_set['id']}").status_code == 204

    assert alice_client.get("/api/v1/study/class-sets").json() == []
    assert alice_client.get(f"/api/v1/study/class-sets/{class_set['id']}").status_code == 404
    assert alice_client.get(f"/api/v1/study/quizzes/{quiz.pk}").status_code == 404
    assert answer(alice_client, quiz, [1, 0, 1]).status_code == 404
    assert alice_client.get(f"/study/quizzes/{quiz.pk}/").status_code == 404
    again = hand_out(tess_client, "quiz", quiz.pk).json()
    results = tess_client.get(f"/api/v1/study/class-sets/{again['id']}/results").json()
    [alice_row] = [row for row in results["students"] if row["username"] == "alice"]
    assert alice_row["score"] == 100


def test_a_teacher_ticks_for_the_class_when_making_a_deck_and_a_student_cannot(
    tess_client, alice_client
):
    cards = [{"front": "Hund", "back": "dog"}]
    made = tess_client.post(
        "/api/v1/study/decks", {"cards": cards, "for_class": True}, content_type=JSON
    )
    refused = alice_client.post(
        "/api/v1/study/decks", {"cards": cards, "for_class": True}, content_type=JSON
    )

    assert made.status_code == 201
    assert ClassSet.objects.get().item == Deck.objects.get(pk=made.json()["id"])
    assert refused.status_code == 403
    assert not alice_client.get("/api/v1/study/decks").json()  # nothing made for her either


def test_generating_a_quiz_for_the_class_on_the_page_hands_it_out(tess, tess_client, model):
    make_studied_document(tess)
    model.answer(questions(5))
    form = tess_client.get("/study/quizzes/").content.decode()
    assert 'name="for_class"' in form

    response = tess_client.post(
        "/study/quizzes/",
        {
            "num_questions": 5,
            "difficulty": "beginner",
            "types": ["mcq"],
            "for_class": class_of(tess).pk,
        },
    )

    assert response.status_code == 302
    assert ClassSet.objects.get().item.owner == tess


def test_a_students_generate_form_has_no_for_the_class_box(alice, alice_client):
    make_studied_document(alice)
    assert 'name="for_class"' not in alice_client.get("/study/decks/").content.decode()


# --- Who reaches what ------------------------------------------------------------------------


def test_other_students_personal_items_stay_theirs_when_sets_are_handed_out(
    alice, bob_client, class_quiz
):
    alices = make_quiz(alice)
    alices_deck = make_deck(alice)

    assert bob_client.get(f"/api/v1/study/quizzes/{alices.pk}").status_code == 404
    assert bob_client.get(f"/api/v1/study/decks/{alices_deck.pk}").status_code == 404
    assert answer(bob_client, alices, [1, 0, 1]).status_code == 404


def test_another_teacher_neither_reads_nor_lists_the_sets_of_a_colleague(
    theo, theo_client, tess_client, class_quiz
):
    class_set = ClassSet.objects.get()
    theos = make_deck(theo)
    ClassSet.objects.hand_out(theo, theos, class_of(theo))

    assert theo_client.get(f"/api/v1/study/quizzes/{class_quiz.pk}").status_code == 404
    assert [s["kind"] for s in tess_client.get("/api/v1/study/class-sets").json()] == ["quiz"]
    for url in (
        f"/api/v1/study/class-sets/{class_set.pk}",
        f"/api/v1/study/class-sets/{class_set.pk}/results",
        f"/api/v1/study/class-sets/{class_set.pk}/results.csv",
        f"/study/class-sets/{class_set.pk}/",
        f"/study/class-sets/{class_set.pk}/results.csv",
    ):
        assert theo_client.get(url).status_code == 404, url
    assert theo_client.delete(f"/api/v1/study/class-sets/{class_set.pk}").status_code == 404
    assert theo_client.post(f"/study/class-sets/{class_set.pk}/take-back/").status_code == 404
    assert ClassSet.objects.count() == 2


def test_a_student_neither_takes_back_nor_reads_the_class_results(alice_client, class_quiz):
    class_set = ClassSet.objects.get()

    assert alice_client.get(f"/api/v1/study/class-sets/{class_set.pk}").status_code == 200
    for url in (
        f"/api/v1/study/class-sets/{class_set.pk}/results",
        f"/api/v1/study/class-sets/{class_set.pk}/results.csv",
        f"/study/class-sets/{class_set.pk}/",
        f"/study/class-sets/{class_set.pk}/results.csv",
    ):
        assert alice_client.get(url).status_code == 404, url
    assert alice_client.delete(f"/api/v1/study/class-sets/{class_set.pk}").status_code == 404
    assert alice_client.post(f"/study/class-sets/{class_set.pk}/take-back/").status_code == 404
    assert ClassSet.objects.exists()


def test_a_student_sees_their_own_figures_never_a_classmates(alice_client, bob_client, class_quiz):
    answer(alice_client, class_quiz, [1, 0, 0])

    [bobs] = bob_client.get("/api/v1/study/class-sets").json()
    [alices] = alice_client.get("/api/v1/study/class-sets").json()

    assert bobs["mine"]["started"] is False and bobs["mine"]["score"] is None
    assert alices["mine"]["finished"] is True and alices["mine"]["score"] == 67
    assert "alice" not in bob_client.get("/study/class-sets/").content.decode()


def test_an_anonymous_visitor_reaches_no_class_set(client, class_quiz):
    assert client.get("/api/v1/study/class-sets").status_code == 401
    assert client.get("/study/class-sets/").status_code == 302


def test_a_class_decks_cards_come_due_in_each_students_own_queue(
    tess, tess_client, alice_client, bob_client
):
    deck = make_deck(tess)
    ClassSet.objects.hand_out(tess, deck, class_of(tess))
    first = deck.cards.first()

    alice_client.post(
        f"/study/decks/{deck.pk}/cards/{first.pk}/review/", {"outcome": "got_it", "queue": "due"}
    )

    alices = [card["front"] for card in alice_client.get("/api/v1/study/decks/due").json()]
    bobs = [card["front"] for card in bob_client.get("/api/v1/study/decks/due").json()]
    assert alices == ["Ribosom"] and bobs == ["Mitochondrium", "Ribosom"]
    assert "1 card to review" in alice_client.get("/study/decks/").content.decode()
    assert "2 cards to review" in bob_client.get("/study/decks/").content.decode()
    assert "Ribosom" in alice_client.get("/study/decks/due/").content.decode()
    # The teacher's own queue holds the deck's cards by the teacher's schedule, untouched.
    assert len(tess_client.get("/api/v1/study/decks/due").json()) == 2


def test_exporting_a_class_mindmap_counts_for_the_students_badges(tess, alice, alice_client):
    mindmap = make_mindmap(tess)
    ClassSet.objects.hand_out(tess, mindmap, class_of(tess))

    response = alice_client.get(f"/study/mindmaps/{mindmap.pk}/export.md")

    assert response.status_code == 200 and "Zelle" in response.content.decode()
    assert Event.objects.get(kind=Event.Kind.MINDMAP_EXPORT).user == alice
