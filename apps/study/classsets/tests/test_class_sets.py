"""Class sets: a teacher hands a quiz, deck, mindmap or workshop to the class; each student
studies it in rows of their own; the teacher sees each student's figures."""

import pytest

from apps.progress.models import Event
from apps.study.classsets.tests.factories import (
    class_passages,
    in_shown_order,
    make_deck,
    make_mindmap,
    make_quiz,
    make_workshop,
)
from apps.study.conftest import make_studied_document, questions
from apps.study.models import (
    Attempt,
    CardReview,
    CardSchedule,
    ClassSet,
    LessonCompletion,
    MindmapArrangement,
)
from conftest import client_for, make_user

pytestmark = pytest.mark.django_db
JSON = "application/json"


def hand_out(client, kind: str, item_id: int, **fields):
    body = {"kind": kind, "id": item_id, **fields}
    return client.post("/api/v1/study/class-sets", body, content_type=JSON)


def answer(client, quiz, answers):
    """Answers in the quiz's own order, sent in the order the student's client shows."""
    url = f"/api/v1/study/quizzes/{quiz.pk}/attempts"
    sent = in_shown_order(client, quiz, answers)
    return client.post(url, {"answers": sent}, content_type=JSON)


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
    ClassSet.objects.hand_out(quiz.owner, quiz)
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
        "detail": "This quiz is handed out already."
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
    assert ClassSet.objects.get().deck_id == made.json()["id"]
    assert refused.status_code == 403
    assert not alice_client.get("/api/v1/study/decks").json()  # nothing made for her either


def test_generating_a_quiz_for_the_class_on_the_page_hands_it_out(tess, tess_client, model):
    make_studied_document(tess)
    model.answer(questions(5))
    form = tess_client.get("/study/quizzes/").content.decode()
    assert 'name="for_class"' in form

    response = tess_client.post(
        "/study/quizzes/",
        {"num_questions": 5, "difficulty": "beginner", "types": ["mcq"], "for_class": "on"},
    )

    assert response.status_code == 302
    assert ClassSet.objects.get().quiz.owner == tess


def test_a_students_generate_form_has_no_for_the_class_box(alice, alice_client):
    make_studied_document(alice)
    assert 'name="for_class"' not in alice_client.get("/study/decks/").content.decode()


# --- Read-only content -----------------------------------------------------------------------


def test_a_student_reads_a_class_deck_but_cannot_change_it(tess, alice_client):
    deck = make_deck(tess)
    ClassSet.objects.hand_out(tess, deck)
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
    ClassSet.objects.hand_out(tess, mindmap)
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
    ClassSet.objects.hand_out(tess, workshop)

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
    ClassSet.objects.hand_out(tess, deck)
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
    ClassSet.objects.hand_out(tess, deck)
    first = deck.cards.first()
    study = f"/study/decks/{deck.pk}/study/"

    alice_client.post(f"/study/decks/{deck.pk}/cards/{first.pk}/review/", {"outcome": "got_it"})

    assert "1 due now · 1 of 2 mastered" in alice_client.get(study).content.decode()
    assert "2 due now · 0 of 2 mastered" in bob_client.get(study).content.decode()


def test_lessons_completed_and_badges_are_each_students_own(tess, alice, alice_client, bob_client):
    workshop = make_workshop(tess, lessons=2)
    ClassSet.objects.hand_out(tess, workshop)
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
    ClassSet.objects.hand_out(tess, mindmap)
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
    ClassSet.objects.hand_out(theo, theos)

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
    ClassSet.objects.hand_out(tess, deck)
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
    ClassSet.objects.hand_out(tess, mindmap)

    response = alice_client.get(f"/study/mindmaps/{mindmap.pk}/export.md")

    assert response.status_code == 200 and "Zelle" in response.content.decode()
    assert Event.objects.get(kind=Event.Kind.MINDMAP_EXPORT).user == alice
