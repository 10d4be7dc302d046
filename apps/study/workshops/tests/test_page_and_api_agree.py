"""The page and the API complete lessons and start the recap quiz through one rule each: a
lesson not written yet cannot be completed, and the recap waits for the last lesson."""

import pytest

from apps.progress.models import Event
from apps.study.models import Quiz
from apps.study.tests.helpers import (
    create_workshop,
    make_studied_document,
    questions,
    write_lesson,
)
from apps.study.workshops.tests.test_workshops import LESSON, outline


@pytest.fixture
def alices_workshop(alice, model):
    make_studied_document(alice)
    model.answer(outline(5))
    made, _badges = create_workshop(alice, num_lessons=5)
    return made


def test_a_lesson_not_written_yet_cannot_be_completed_on_page_or_api(alices_workshop, alice_client):
    page = alice_client.post(f"/study/workshops/{alices_workshop.pk}/lessons/2/complete/")
    api = alice_client.post(f"/api/v1/study/workshops/{alices_workshop.pk}/lessons/2/complete")

    message = "Open the lesson first: it has not been written yet."
    assert page.status_code == 400 and message in page.content.decode()
    assert api.status_code == 409 and api.json() == {"detail": message}
    assert not alices_workshop.lessons.filter(completed_at__isnull=False).exists()
    assert not Event.objects.filter(kind=Event.Kind.LESSON).exists()


def test_a_written_lesson_is_completed_and_recorded_once_on_page_and_api(
    alices_workshop, alice_client, model
):
    model.answer(LESSON)
    for lesson in alices_workshop.lessons.filter(number__in=[1, 2]):
        write_lesson(lesson)

    page = alice_client.post(f"/study/workshops/{alices_workshop.pk}/lessons/1/complete/")
    api = alice_client.post(f"/api/v1/study/workshops/{alices_workshop.pk}/lessons/2/complete")
    again = alice_client.post(f"/api/v1/study/workshops/{alices_workshop.pk}/lessons/1/complete")

    assert page.status_code == 302 and api.status_code == 200
    assert again.json()["badges"] == []
    assert alices_workshop.lessons.filter(completed_at__isnull=False).count() == 2
    assert Event.objects.filter(kind=Event.Kind.LESSON).count() == 2


def test_the_recap_quiz_waits_for_the_last_lesson_on_page_and_api(
    alices_workshop, alice_client, model
):
    model.answer(questions(5))

    page = alice_client.post(f"/study/workshops/{alices_workshop.pk}/recap/")
    api = alice_client.post(f"/api/v1/study/workshops/{alices_workshop.pk}/recap")

    message = "Complete every lesson first; the recap quiz comes at the end."
    assert page.status_code == 400 and message in page.content.decode()
    assert api.status_code == 409 and api.json() == {"detail": message}
    assert not Quiz.objects.exists() and not model.chats[1:]
