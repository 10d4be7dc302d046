"""Starting a generation: the page and the API answer at once and queue the work, nothing is made
twice for one request (the same idempotency key, a form sent twice), and an empty scope or the
rate limit are refused before anything is queued."""

import pytest

from apps.study.models import Deck, Mindmap, Quiz, Workshop
from apps.study.tests.helpers import make_studied_document, questions, run_worker

pytestmark = pytest.mark.django_db


QUIZ = {"num_questions": 5, "difficulty": "beginner", "types": ["mcq", "true_false"]}


def post(client, path: str, body: dict, **headers):
    return client.post(path, body, content_type="application/json", **headers)


def test_the_api_answers_202_at_once_and_the_worker_makes_the_quiz(
    alice, alice_client, model, django_capture_on_commit_callbacks
):
    make_studied_document(alice)
    model.answer(questions(5))
    with django_capture_on_commit_callbacks() as queued:
        started = post(alice_client, "/api/v1/study/quizzes", QUIZ)
    quiz_id = started.json()["id"]
    waiting = alice_client.get(f"/api/v1/study/quizzes/{quiz_id}").json()
    early = post(alice_client, f"/api/v1/study/quizzes/{quiz_id}/attempts", {"answers": [1] * 5})

    assert started.status_code == 202 and started.json() == {"id": quiz_id, "status": "generating"}
    assert len(queued) == 1 and not model.chats  # queued, and no model asked in the request
    assert waiting["status"] == "generating" and waiting["questions"] == []
    assert early.status_code == 409
    assert early.json() == {"detail": "This quiz is still being made; try again when it is ready."}

    assert run_worker() == [("quiz", quiz_id)]
    made = alice_client.get(f"/api/v1/study/quizzes/{quiz_id}").json()
    assert made["status"] == "ready" and made["error"] == ""
    assert [q["question"] for q in made["questions"]] == [
        q["question"] for q in questions(5)["questions"]
    ]
    answered = post(alice_client, f"/api/v1/study/quizzes/{quiz_id}/attempts", {"answers": [1] * 5})
    assert answered.status_code == 201


@pytest.mark.parametrize(
    ("path", "body", "model_class"),
    [
        ("/api/v1/study/quizzes", QUIZ, Quiz),
        ("/api/v1/study/workshops", {"num_lessons": 5}, Workshop),
        ("/api/v1/study/decks", {"num_cards": 10}, Deck),
        ("/api/v1/study/mindmaps", {}, Mindmap),
    ],
)
@pytest.mark.usefixtures("midday")  # a minute's rate window must not turn mid-test
def test_a_call_retried_with_the_same_idempotency_key_starts_nothing_new(
    alice,
    alice_client,
    model,
    settings,
    django_capture_on_commit_callbacks,
    path,
    body,
    model_class,
):
    settings.RATE_LIMIT_GENERATION = "2/m"
    make_studied_document(alice)
    with django_capture_on_commit_callbacks() as queued:
        first = post(alice_client, path, body, HTTP_IDEMPOTENCY_KEY="try-1")
        retried = post(alice_client, path, body, HTTP_IDEMPOTENCY_KEY="try-1")
        retried_again = post(alice_client, path, body, HTTP_IDEMPOTENCY_KEY="try-1")
        other = post(alice_client, path, body, HTTP_IDEMPOTENCY_KEY="try-2")

    assert first.status_code == retried.status_code == retried_again.status_code == 202
    assert first.json()["id"] == retried.json()["id"] == retried_again.json()["id"]
    assert other.status_code == 202 and other.json()["id"] != first.json()["id"]
    assert len(queued) == 2 and model_class.objects.count() == 2
    # A repeat is no new generation: the limit of 2 counted only the two that started one.
    assert post(alice_client, path, body, HTTP_IDEMPOTENCY_KEY="try-3").status_code == 429


@pytest.mark.usefixtures("midday")  # a minute's rate window must not turn mid-test
def test_a_retried_call_finds_its_item_even_once_the_limit_is_reached(
    alice, alice_client, model, settings
):
    settings.RATE_LIMIT_GENERATION = "1/m"
    make_studied_document(alice)
    first = post(alice_client, "/api/v1/study/quizzes", QUIZ, HTTP_IDEMPOTENCY_KEY="try-1")
    limited = post(alice_client, "/api/v1/study/quizzes", QUIZ, HTTP_IDEMPOTENCY_KEY="try-2")
    retried = post(alice_client, "/api/v1/study/quizzes", QUIZ, HTTP_IDEMPOTENCY_KEY="try-1")

    assert (first.status_code, limited.status_code, retried.status_code) == (202, 429, 202)
    assert retried.json() == first.json()


@pytest.mark.usefixtures("midday")  # a minute's rate window must not turn mid-test
def test_a_key_sent_again_with_another_request_is_refused(
    alice, alice_client, model, settings, django_capture_on_commit_callbacks
):
    settings.RATE_LIMIT_GENERATION = "1/m"
    make_studied_document(alice)
    harder = {**QUIZ, "difficulty": "advanced"}
    with django_capture_on_commit_callbacks() as queued:
        first = post(alice_client, "/api/v1/study/quizzes", QUIZ, HTTP_IDEMPOTENCY_KEY="try-1")
        other = post(alice_client, "/api/v1/study/quizzes", harder, HTTP_IDEMPOTENCY_KEY="try-1")
        # The same request in another spelling (the types in another order) is the same one.
        same = post(
            alice_client,
            "/api/v1/study/quizzes",
            {**QUIZ, "types": ["true_false", "mcq"]},
            HTTP_IDEMPOTENCY_KEY="try-1",
        )

    assert first.status_code == 202
    # Refused for what it is, not for the limit the first call reached.
    assert other.status_code == 422
    assert other.json() == {
        "detail": "This Idempotency-Key was used for a different request: "
        "send a new key to ask for something else."
    }
    assert same.status_code == 202 and same.json() == first.json()
    assert len(queued) == 1 and Quiz.objects.get().difficulty == "beginner"


def test_the_same_key_of_another_person_is_theirs_alone(
    alice, bob, alice_client, bob_client, model
):
    make_studied_document(alice)
    make_studied_document(bob, "bob.txt")
    alices = post(alice_client, "/api/v1/study/quizzes", QUIZ, HTTP_IDEMPOTENCY_KEY="k")
    bobs = post(bob_client, "/api/v1/study/quizzes", QUIZ, HTTP_IDEMPOTENCY_KEY="k")

    assert alices.json()["id"] != bobs.json()["id"]
    assert Quiz.objects.get(pk=bobs.json()["id"]).owner == bob


@pytest.mark.parametrize(
    ("page", "action", "fields", "model_class"),
    [
        ("/study/quizzes/", "/study/quizzes/", QUIZ, Quiz),
        ("/study/workshops/", "/study/workshops/", {"num_lessons": "5"}, Workshop),
        ("/study/decks/", "/study/decks/generate/", {"num_cards": "10"}, Deck),
        ("/study/mindmaps/", "/study/mindmaps/generate/", {"title": ""}, Mindmap),
    ],
)
def test_a_form_sent_twice_makes_one_item(
    alice,
    alice_client,
    model,
    django_capture_on_commit_callbacks,
    page,
    action,
    fields,
    model_class,
):
    make_studied_document(alice)
    html = alice_client.get(page).content.decode()
    token = html.split('name="token" value="', 1)[1].split('"', 1)[0]
    with django_capture_on_commit_callbacks() as queued:
        first = alice_client.post(action, {**fields, "token": token})
        second = alice_client.post(action, {**fields, "token": token})
    fresh = alice_client.get(page).content.decode()

    assert first.status_code == second.status_code == 302
    assert first["Location"] == second["Location"]
    assert len(queued) == 1 and model_class.objects.count() == 1
    assert f'value="{token}"' not in fresh  # the next form shown is a new request


def test_a_form_sent_again_with_other_choices_says_so_and_can_be_sent_as_a_new_request(
    alice, alice_client, model
):
    """The back button: the form's token went with other choices before."""
    make_studied_document(alice)
    html = alice_client.get("/study/quizzes/").content.decode()
    token = html.split('name="token" value="', 1)[1].split('"', 1)[0]
    first = alice_client.post("/study/quizzes/", {**QUIZ, "token": token})
    other = alice_client.post("/study/quizzes/", {**QUIZ, "difficulty": "advanced", "token": token})
    shown = other.content.decode()
    fresh = shown.split('name="token" value="', 1)[1].split('"', 1)[0]
    again = alice_client.post("/study/quizzes/", {**QUIZ, "difficulty": "advanced", "token": fresh})

    assert first.status_code == 302 and other.status_code == 400
    assert "This form was sent before with other choices" in shown
    assert fresh != token
    assert again.status_code == 302 and again["Location"] != first["Location"]
    assert sorted(Quiz.objects.values_list("difficulty", flat=True)) == ["advanced", "beginner"]


@pytest.mark.usefixtures("midday")  # a minute's rate window must not turn mid-test
def test_an_empty_scope_and_the_rate_limit_are_refused_before_anything_is_queued(
    alice, alice_client, model, settings, django_capture_on_commit_callbacks
):
    settings.RATE_LIMIT_GENERATION = "1/m"
    with django_capture_on_commit_callbacks() as queued:
        empty = post(alice_client, "/api/v1/study/quizzes", QUIZ)
        make_studied_document(alice)
        limited = post(alice_client, "/api/v1/study/quizzes", QUIZ)

    assert empty.status_code == 400 and "Knowledge Base" in empty.json()["detail"]
    assert limited.status_code == 429
    assert queued == [] and not Quiz.objects.exists()


def test_an_items_title_names_its_documents_without_their_file_extensions(alice, alice_client):
    one = make_studied_document(alice, "Zellbiologie_Klasse7.pdf")
    two = make_studied_document(alice, "Romans.html")

    started = post(alice_client, "/api/v1/study/quizzes", QUIZ | {"document_ids": [one.pk, two.pk]})

    quiz = Quiz.objects.get(pk=started.json()["id"])
    assert quiz.title == "Quiz on Romans, Zellbiologie Klasse7"


def test_a_scope_naming_someone_elses_document_is_not_found(alice, bob, alice_client):
    make_studied_document(alice)
    bobs = make_studied_document(bob, "secret.txt")

    refused = post(alice_client, "/api/v1/study/quizzes", QUIZ | {"document_ids": [bobs.pk]})

    assert refused.status_code == 404
    assert refused.json()["detail"].startswith(f"No such document: {bobs.pk}.")
    assert not Quiz.objects.exists()
