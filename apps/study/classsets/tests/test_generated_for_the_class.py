"""Class items a worker makes: handed out at once, seen by students only once ready. The teacher
sees the item's card while it is made; a student meets a 404 and no "From your teacher" entry
until the worker ends it ready, and never for one that failed."""

import pytest

from apps.study.classsets.tests.factories import (
    class_passages,
    make_deck,
    make_mindmap,
    make_quiz,
    make_workshop,
)
from apps.study.models import ClassSet, Lesson, Quiz
from apps.study.tests.helpers import make_studied_document, questions, run_worker
from tests.helpers.classes import class_of

pytestmark = pytest.mark.django_db
JSON = "application/json"
QUIZ = {"num_questions": 5, "difficulty": "beginner", "types": ["mcq", "true_false"]}


def start_class_quiz(client) -> int:
    started = client.post("/api/v1/study/quizzes", {**QUIZ, "for_class": True}, content_type=JSON)
    assert started.status_code == 202, started.content
    assert started.json()["status"] == "generating"
    return started.json()["id"]


def students_view(client, quiz_id: int) -> dict:
    """What a student reaches of a class quiz: its routes' statuses and their set list."""
    return {
        "api": client.get(f"/api/v1/study/quizzes/{quiz_id}").status_code,
        "attempt": client.post(
            f"/api/v1/study/quizzes/{quiz_id}/attempts", {"answers": [0]}, content_type=JSON
        ).status_code,
        "page": client.get(f"/study/quizzes/{quiz_id}/").status_code,
        "sets": [s["item_id"] for s in client.get("/api/v1/study/class-sets").json()],
    }


def test_a_class_quiz_being_made_is_handed_out_at_once_and_hidden_from_students(
    tess, tess_client, alice_client, model
):
    make_studied_document(tess)
    model.answer(questions(5))
    quiz_id = start_class_quiz(tess_client)
    class_set = ClassSet.objects.get()
    teachers_page = tess_client.get(f"/study/quizzes/{quiz_id}/").content.decode()

    assert (class_set.kind, class_set.item_id) == ("quiz", quiz_id)
    assert Quiz.objects.get(pk=quiz_id).status == "generating"
    assert students_view(alice_client, quiz_id) == {
        "api": 404,
        "attempt": 404,
        "page": 404,
        "sets": [],
    }
    assert "Making a quiz of 5 questions" in teachers_page
    assert tess_client.get("/api/v1/study/class-sets").json()[0]["item_id"] == quiz_id
    assert "Zellbiologie" not in alice_client.get("/study/class-sets/").content.decode()
    assert f"/study/quizzes/{quiz_id}/" not in alice_client.get("/study/class-sets/").text


def test_students_see_the_class_quiz_once_the_worker_made_it(
    tess, tess_client, alice_client, model
):
    make_studied_document(tess)
    model.answer(questions(5))
    quiz_id = start_class_quiz(tess_client)

    assert run_worker() == [("quiz", quiz_id)]
    quiz = alice_client.get(f"/api/v1/study/quizzes/{quiz_id}").json()
    answered = alice_client.post(
        f"/api/v1/study/quizzes/{quiz_id}/attempts", {"answers": [0] * 5}, content_type=JSON
    )

    assert quiz["status"] == "ready" and len(quiz["questions"]) == 5
    assert answered.status_code == 201
    # Her one attempt used, the quiz's page shows her review.
    page = alice_client.get(f"/study/quizzes/{quiz_id}/")
    assert page["Location"] == f"/study/quizzes/{quiz_id}/attempts/{answered.json()['id']}/"
    assert alice_client.get(page["Location"]).status_code == 200
    assert [s["item_id"] for s in alice_client.get("/api/v1/study/class-sets").json()] == [quiz_id]
    assert f"/study/quizzes/{quiz_id}/" in alice_client.get("/study/class-sets/").text


def test_a_class_quiz_that_failed_stays_the_teachers_alone(tess, tess_client, alice_client, model):
    make_studied_document(tess)
    model.answer("not json at all")
    quiz_id = start_class_quiz(tess_client)
    run_worker()

    assert Quiz.objects.get(pk=quiz_id).status == "failed"
    assert students_view(alice_client, quiz_id)["api"] == 404
    assert students_view(alice_client, quiz_id)["sets"] == []
    assert "Try again" in tess_client.get(f"/study/quizzes/{quiz_id}/").content.decode()


def test_a_class_quiz_made_on_the_page_shows_its_card_to_the_teacher_only(
    tess, tess_client, alice_client, model
):
    make_studied_document(tess)
    model.answer(questions(5))
    sent = tess_client.post("/study/quizzes/", {**QUIZ, "for_class": class_of(tess).pk})
    quiz = ClassSet.objects.get().item

    assert sent.status_code == 302 and sent["Location"] == f"/study/quizzes/{quiz.pk}/"
    assert "Making a quiz" in tess_client.get(sent["Location"]).content.decode()
    assert alice_client.get(sent["Location"]).status_code == 404
    run_worker()
    assert alice_client.get(sent["Location"]).status_code == 200


@pytest.mark.parametrize(
    ("kind", "make", "api", "page"),
    [
        ("quiz", make_quiz, "/api/v1/study/quizzes/{}", "/study/quizzes/{}/"),
        ("deck", make_deck, "/api/v1/study/decks/{}", "/study/decks/{}/"),
        ("mindmap", make_mindmap, "/api/v1/study/mindmaps/{}", "/study/mindmaps/{}/"),
        ("workshop", make_workshop, "/api/v1/study/workshops/{}", "/study/workshops/{}/"),
    ],
)
@pytest.mark.parametrize("status", ["generating", "failed"])
def test_no_kind_of_class_item_reaches_students_before_it_is_ready(
    tess, alice_client, kind, make, api, page, status
):
    item = make(tess)
    ClassSet.objects.hand_out(tess, item, class_of(tess))
    type(item).objects.filter(pk=item.pk).update(status=status)

    assert alice_client.get(api.format(item.pk)).status_code == 404
    assert alice_client.get(page.format(item.pk)).status_code == 404
    assert alice_client.get("/api/v1/study/class-sets").json() == []
    assert alice_client.get("/api/v1/study/decks/due").json() == []

    type(item).objects.filter(pk=item.pk).update(status="ready")
    assert alice_client.get(api.format(item.pk)).status_code == 200
    assert len(alice_client.get("/api/v1/study/class-sets").json()) == 1


@pytest.mark.usefixtures("midday")  # a minute's rate window must not turn mid-test
def test_only_a_teacher_asks_for_the_class_and_is_refused_before_the_rate_limit(
    alice, alice_client, settings, django_capture_on_commit_callbacks
):
    settings.RATE_LIMIT_GENERATION = "1/m"
    make_studied_document(alice)
    body = {**QUIZ, "for_class": True}
    with django_capture_on_commit_callbacks() as queued:
        refused = [
            alice_client.post("/api/v1/study/quizzes", body, content_type=JSON) for _ in range(3)
        ]

    assert [r.status_code for r in refused] == [403] * 3  # never 429: nothing was counted
    assert queued == [] and not Quiz.objects.exists() and not ClassSet.objects.exists()
    started = alice_client.post("/api/v1/study/quizzes", QUIZ, content_type=JSON)
    assert started.status_code == 202  # her one generation a minute is still hers


def unwritten_class_workshop(tess):
    chunks = class_passages(tess)
    workshop = make_workshop(tess, lessons=2)
    workshop.chunk_ids = [chunk.pk for chunk in chunks]
    workshop.save(update_fields=["chunk_ids"])
    workshop.lessons.update(status=Lesson.Status.PENDING, content="")
    ClassSet.objects.hand_out(tess, workshop, class_of(tess))
    return workshop


def test_the_first_student_to_open_an_unwritten_class_lesson_has_a_worker_write_it(
    tess, alice_client, bob_client, model
):
    workshop = unwritten_class_workshop(tess)
    model.answer("## Mitochondrien\n\nDas Kraftwerk der Zelle.")
    url = f"/api/v1/study/workshops/{workshop.pk}/lessons/1"

    opened = alice_client.post(url)
    again = bob_client.post(url)  # being written: not queued a second time
    assert opened.status_code == again.status_code == 202
    assert opened.json()["status"] == "generating"
    assert run_worker() == [("lesson", workshop.lessons.get(number=1).pk)]

    written = bob_client.post(url)
    assert written.status_code == 200
    assert "Kraftwerk" in written.json()["content"]
    assert written.json()["completed_at"] is None  # bob's own mark, not anyone else's
    assert len(model.chats) == 1


@pytest.mark.usefixtures("midday")  # a minute's rate window must not turn mid-test
def test_a_student_opening_class_lessons_on_the_page_is_held_to_their_rate_limit(
    tess, alice_client, bob_client, settings, model
):
    settings.RATE_LIMIT_GENERATION = "1/m"
    workshop = unwritten_class_workshop(tess)

    first = alice_client.post(f"/study/workshops/{workshop.pk}/lessons/1/write/")
    second = alice_client.post(f"/study/workshops/{workshop.pk}/lessons/2/write/")
    bobs = bob_client.post(f"/study/workshops/{workshop.pk}/lessons/2/write/")

    assert first.status_code == 302 and second.status_code == 429
    assert bobs.status_code == 302
    assert run_worker() and set(workshop.lessons.values_list("status", flat=True)) == {"ready"}
