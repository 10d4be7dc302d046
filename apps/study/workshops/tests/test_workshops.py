import pytest

from apps.study import generator
from apps.study.models import Lesson, Quiz, Workshop
from apps.study.tests.helpers import (
    create_workshop,
    generate,
    make_studied_document,
    questions,
    run_worker,
    write_lesson,
)
from apps.study.workshops import generation as workshop
from tests.helpers.isolation import assert_only_owner_can_reach


def outline(count: int = 5) -> dict:
    return {
        "title": "Cells and energy",
        "summary": "Explain where a cell gets its energy.",
        "lessons": [
            {"title": f"{i + 1}. Part {i + 1}", "summary": f"About part {i + 1}.", "sources": [1]}
            for i in range(count)
        ],
    }


LESSON = """Sure! Here is the lesson:

## The powerhouse

The mitochondrion makes ATP. <script>alert(1)</script>

## Key points

- Mitochondria make energy.

I hope this helps! Let me know if you have any questions."""


@pytest.fixture
def alices_workshop(alice, model) -> Workshop:
    make_studied_document(alice)
    model.answer(outline())
    made, _badges = create_workshop(alice, num_lessons=5)
    return made


def test_the_outline_becomes_a_workshop_with_numbered_lessons(alices_workshop):
    lessons = list(alices_workshop.lessons.all())

    assert alices_workshop.title == "Cells and energy"
    assert [lesson.number for lesson in lessons] == [1, 2, 3, 4, 5]
    assert lessons[0].title == "Part 1"  # the model's numbering is taken off
    assert all(lesson.status == Lesson.Status.PENDING and not lesson.content for lesson in lessons)


def test_an_unparseable_outline_is_retried_once_with_a_stricter_prompt(alice, model):
    make_studied_document(alice)
    model.answer("Here are some lessons: intro, middle, end", outline(5))

    made, _badges = create_workshop(alice, num_lessons=5)

    assert made.lessons.count() == 5
    assert len(model.chats) == 2
    assert "previous response was unparseable" in model.prompt(-1)


def test_two_unparseable_outlines_leave_the_outline_to_the_documents(alice, model):
    make_studied_document(alice)
    model.answer("nope", "still nope")

    made, _badges = create_workshop(alice, num_lessons=10)

    assert len(model.chats) == 2
    assert made.backend == generator.EXTRACTIVE and "unusable" in made.model
    lessons = list(made.lessons.all())
    assert lessons and all(lesson.extractive and lesson.content for lesson in lessons)


def test_an_outline_with_too_few_lessons_is_filled_from_the_documents(alice, model):
    make_studied_document(alice, chunks=6)
    model.answer(outline(count=2))

    made, _badges = create_workshop(alice, num_lessons=5)

    lessons = list(made.lessons.all())
    assert len(lessons) == 5 and made.backend == "ollama"
    assert [lesson.extractive for lesson in lessons] == [False] * 2 + [True] * 3
    assert all(lesson.status == "ready" and lesson.content for lesson in lessons[2:])
    assert lessons[0].status == "pending"  # the model writes its own when first opened


def test_the_api_marks_lessons_cut_from_the_text(alice, alice_client, model):
    make_studied_document(alice, chunks=6)
    model.answer(outline(count=4))
    made = generate(alice_client, "/api/v1/study/workshops", {"num_lessons": 5})
    assert made["status"] == "ready"
    assert [lesson["extractive"] for lesson in made["lessons"]] == [False] * 4 + [True]


def test_a_lesson_is_written_when_first_opened_without_filler_and_sanitised(
    alices_workshop, alice_client, model
):
    model.answer(LESSON)
    url = f"/study/workshops/{alices_workshop.pk}/lessons/1/"

    first = alice_client.get(url).content.decode()
    queued = alice_client.post(url + "write/", HTTP_HX_REQUEST="true").content.decode()
    assert run_worker() == [("lesson", alices_workshop.lessons.get(number=1).pk)]
    written = alice_client.get(url, HTTP_HX_REQUEST="true").content.decode()  # the body's poll
    lesson = alices_workshop.lessons.get(number=1)

    assert "Writing lesson 1 of 5" in first and "Writing lesson 1 of 5" in queued
    assert lesson.status == Lesson.Status.READY
    assert not lesson.content.startswith("Sure")
    assert "I hope this helps" not in lesson.content
    assert "<h2>The powerhouse</h2>" in written
    assert "<script>" not in written
    chats = len(model.chats)
    alice_client.post(url + "write/")
    assert run_worker() == [] and len(model.chats) == chats  # written once, kept


def test_a_failed_lesson_shows_the_error_and_can_be_retried(alices_workshop, alice_client, model):
    model.fail_with = (500, "boom")
    url = f"/study/workshops/{alices_workshop.pk}/lessons/2/"

    alice_client.post(url + "write/", HTTP_HX_REQUEST="true")
    run_worker()
    failed = alice_client.get(url, HTTP_HX_REQUEST="true").content.decode()
    model.fail_with = None
    model.answer(LESSON)
    alice_client.post(url + "write/", HTTP_HX_REQUEST="true")  # "Try again"
    run_worker()
    retried = alice_client.get(url, HTTP_HX_REQUEST="true").content.decode()

    assert "language model" in failed and "Try again" in failed
    assert "The powerhouse" in retried


def test_completing_every_lesson_completes_the_workshop_and_offers_a_recap_quiz(
    alices_workshop, alice_client, model
):
    model.answer(LESSON)
    for lesson in alices_workshop.lessons.all():
        write_lesson(lesson)
    for number in range(1, 6):
        done = alice_client.post(
            f"/study/workshops/{alices_workshop.pk}/lessons/{number}/complete/"
        )
        # On to the next lesson; the last stays where it is.
        following = min(number + 1, 5)
        assert done["Location"] == f"/study/workshops/{alices_workshop.pk}/lessons/{following}/"
    alices_workshop.refresh_from_db()
    model.answer(questions(5))

    page = alice_client.get(f"/study/workshops/{alices_workshop.pk}/lessons/5/").content.decode()
    response = alice_client.post(f"/study/workshops/{alices_workshop.pk}/recap/")
    recap = Quiz.objects.get(workshop=alices_workshop)

    assert alices_workshop.completed_at is not None
    assert "Workshop complete. Check yourself with the recap quiz." in page
    assert "Take the recap quiz" in page
    assert response["Location"] == f"/study/quizzes/{recap.pk}/"
    assert recap.questions.count() == 5
    assert set(recap.chunk_ids) <= set(alices_workshop.chunk_ids)


def test_exports_hold_the_written_lessons(alices_workshop, alice_client, model):
    model.answer(LESSON)
    write_lesson(alices_workshop.lessons.get(number=1))
    base = f"/study/workshops/{alices_workshop.pk}/"

    markdown = alice_client.get(base + "export.md").content.decode()
    pdf = alice_client.get(base + "export.pdf").content

    assert "## Lesson 1: Part 1" in markdown and "## The powerhouse" in markdown
    assert "Not written yet" in markdown
    assert pdf.startswith(b"%PDF")


def test_the_api_plans_writes_and_completes_lessons(alice, alice_client, model):
    make_studied_document(alice)
    model.answer(outline(5))
    created = generate(alice_client, "/api/v1/study/workshops", {"num_lessons": 5})
    workshop_id = created["id"]
    model.answer(LESSON)
    early = alice_client.post(f"/api/v1/study/workshops/{workshop_id}/lessons/2/complete")
    queued = alice_client.post(f"/api/v1/study/workshops/{workshop_id}/lessons/2")
    again = alice_client.post(f"/api/v1/study/workshops/{workshop_id}/lessons/2")
    still = alice_client.post(f"/api/v1/study/workshops/{workshop_id}/lessons/2/complete")
    assert len(run_worker()) == 1  # asked twice, written once
    lesson = alice_client.post(f"/api/v1/study/workshops/{workshop_id}/lessons/2")
    done = alice_client.post(f"/api/v1/study/workshops/{workshop_id}/lessons/2/complete")

    assert created["status"] == "ready" and len(created["lessons"]) == 5
    assert early.status_code == 409 and still.status_code == 409
    assert (queued.status_code, again.status_code) == (202, 202)
    assert queued.json()["status"] == again.json()["status"] == "generating"
    assert lesson.status_code == 200
    assert lesson.json()["status"] == "ready" and "## The powerhouse" in lesson.json()["content"]
    assert done.json() == {"number": 2, "workshop_completed": False, "badges": ["lesson_learned"]}
    assert alice_client.post(f"/api/v1/study/workshops/{workshop_id}/lessons/9").status_code == 404


def test_a_workshop_opens_at_its_first_lesson_not_completed(alices_workshop, alice_client, model):
    model.answer(LESSON)
    write_lesson(alices_workshop.lessons.get(number=1))
    url = f"/study/workshops/{alices_workshop.pk}/"
    first = alice_client.get(url)
    alice_client.post(url + "lessons/1/complete/")

    assert first["Location"] == url + "lessons/1/"
    assert alice_client.get(url)["Location"] == url + "lessons/2/"
    assert url in alice_client.get("/study/workshops/").content.decode()


def test_bob_cannot_open_write_complete_or_export_alices_workshop(alices_workshop, bob_client):
    base = f"/study/workshops/{alices_workshop.pk}/"
    api = f"/api/v1/study/workshops/{alices_workshop.pk}"
    for url, methods in [
        (base, ["get"]),
        (base + "lessons/1/", ["get"]),
        (base + "lessons/1/write/", ["post"]),
        (base + "lessons/1/complete/", ["post"]),
        (base + "recap/", ["post"]),
        (base + "export.md", ["get"]),
        (base + "export.pdf", ["get"]),
        (api, ["get"]),
        (api + "/lessons/1", ["post"]),
        (api + "/lessons/1/complete", ["post"]),
        (api + "/recap", ["post"]),
        (api + "/export", ["get"]),
    ]:
        assert_only_owner_can_reach(url, bob_client, methods)
    assert bob_client.get("/api/v1/study/workshops").json() == []
    assert not alices_workshop.lessons.filter(completed_at__isnull=False).exists()


def test_filler_lines_are_stripped_and_content_kept():
    text = "```markdown\nCertainly! Here's the lesson:\n## A\nText stays.\nFeel free to ask.\n```"

    assert workshop.clean_lesson(text) == "## A\nText stays."
