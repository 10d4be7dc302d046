"""A student's fair share of the chat workers: answers being written at once and questions per
minute, refused with a 429 and Retry-After by the API and under the composer on the socket
(docs/classroom.md#a-fair-share-of-the-machine). The same rule with real workers, where
another student's answer does not wait behind a flood: tests/test_chat_workers.py."""

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from apps.accounts.ratelimits import RateLimited
from apps.chat import turns
from apps.chat.models import Message, Thread
from apps.chat.tests.helpers import open_socket
from tests.helpers.slowness import scaled


def writing(user, count: int) -> list[Thread]:
    """`count` threads of `user`'s, each with an answer still being written."""
    threads = [Thread.objects.create(owner=user) for _ in range(count)]
    for thread in threads:
        thread.ask("Explain osmosis at length", {}, "")
    return threads


def ask_api(client, thread: Thread, content: str = "And diffusion?"):
    return client.post(
        f"/api/v1/chat/sessions/{thread.pk}/messages",
        {"content": content},
        content_type="application/json",
    )


def test_a_student_with_two_answers_being_written_gets_a_429_for_a_third(
    settings, alice, alice_client
):
    settings.CHAT_ANSWERS_IN_PROGRESS = 2
    writing(alice, 2)
    third = Thread.objects.create(owner=alice)

    response = ask_api(alice_client, third)

    assert response.status_code == 429
    assert response["Retry-After"] == str(turns.BUSY_RETRY_SECONDS)
    assert "2 answers being written" in response.json()["detail"]
    assert not third.messages.exists()


def test_another_student_asks_while_one_has_answers_being_written(settings, alice, bob):
    settings.CHAT_ANSWERS_IN_PROGRESS = 2
    writing(alice, 2)

    answer = turns.ask(bob, Thread.objects.create(owner=bob), "What is a cell?")

    assert answer.status == Message.Status.STREAMING


def test_a_finished_answer_gives_its_place_back(settings, alice):
    settings.CHAT_ANSWERS_IN_PROGRESS = 2
    first, _ = writing(alice, 2)
    first.messages.filter(role=Message.Role.ASSISTANT).update(status=Message.Status.DONE)

    answer = turns.ask(alice, Thread.objects.create(owner=alice), "And diffusion?")

    assert answer.status == Message.Status.STREAMING


def test_an_answer_whose_worker_died_does_not_count(settings, alice):
    settings.CHAT_ANSWERS_IN_PROGRESS = 1
    (thread,) = writing(alice, 1)
    long_ago = timezone.now() - timedelta(seconds=settings.CHAT_STALE_SECONDS + 1)
    thread.messages.filter(role=Message.Role.ASSISTANT).update(worker="w1", heartbeat_at=long_ago)

    answer = turns.ask(alice, Thread.objects.create(owner=alice), "And diffusion?")

    assert answer.status == Message.Status.STREAMING


def test_questions_past_the_rate_get_a_429_with_retry_after(settings, alice, alice_client, midday):
    settings.RATE_LIMIT_CHAT_QUESTIONS = "2/m"
    settings.CHAT_ANSWERS_IN_PROGRESS = 0
    for thread in writing(alice, 2):  # asked through turns.ask, the rule every caller uses
        thread.messages.all().delete()
        turns.ask(alice, thread, "What is a cell?")

    response = ask_api(alice_client, Thread.objects.create(owner=alice))

    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 60
    assert response.json()["detail"].startswith("Too many questions: at most 2 per minute.")


def test_regenerating_and_editing_count_as_questions(settings, alice, midday):
    settings.RATE_LIMIT_CHAT_QUESTIONS = "2/m"
    settings.CHAT_ANSWERS_IN_PROGRESS = 0
    thread = Thread.objects.create(owner=alice)
    turns.ask(alice, thread, "What is a cell?")
    thread.messages.filter(role=Message.Role.ASSISTANT).update(status=Message.Status.DONE)
    turns.regenerate(alice, thread)
    thread.messages.filter(role=Message.Role.ASSISTANT).update(status=Message.Status.DONE)

    question = thread.messages.filter(role=Message.Role.USER).get()
    with pytest.raises(RateLimited):
        turns.edit(alice, thread, question.pk, "What is a tissue?")


@pytest.mark.asyncio
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
async def test_the_socket_says_why_under_the_composer_and_keeps_the_question(settings, alice):
    settings.CHAT_ANSWERS_IN_PROGRESS = 1
    await database_sync_to_async(writing)(alice, 1)
    thread = await Thread.objects.acreate(owner=alice)
    socket = await open_socket(alice, thread.pk)

    await socket.send_json_to({"action": "ask", "content": "And diffusion?"})
    frame = await socket.receive_from(timeout=scaled(5))
    await socket.disconnect()

    assert 'id="composer-error"' in frame and "1 answer being written" in frame
    assert 'id="question-box"' not in frame  # the typed question stays in the box
    assert not await thread.messages.aexists()


def test_a_second_question_to_a_thread_still_answering_is_a_conflict(alice, alice_client):
    [thread] = writing(alice, 1)

    response = ask_api(alice_client, thread)

    assert response.status_code == 409
    assert response.json()["detail"].startswith("An answer is still being written")
    assert thread.messages.count() == 2  # the first question and its answer, nothing more
