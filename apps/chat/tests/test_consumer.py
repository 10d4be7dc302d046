"""The chat websocket against a fake model server: thinking, sources, answer, tools, stop."""

import asyncio
import re
import threading

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from apps.chat.conversation import group_for
from apps.chat.models import Message, Thread
from apps.chat.routing import websocket_urlpatterns
from apps.chat.tests.helpers import CHUNK_TEXT, frames_until_final, open_socket
from apps.chat.tests.model_script import ANSWER
from apps.llm.tests.fake_ollama import part
from tests.helpers.slowness import scaled

# serialized_rollback: the flush that ends a transactional test would otherwise take the data
# migrations' rows (badges) with it and clash with the next test that restores them.
pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


def answer_of(thread: Thread) -> Message:
    return thread.messages.filter(role=Message.Role.ASSISTANT).last()


async def test_it_streams_thinking_then_sources_then_the_answer(
    fake_model, cell_notes, alice, alice_thread
):
    socket = await open_socket(alice, alice_thread.pk)
    await socket.send_json_to({"action": "ask", "content": "What do mitochondria do?"})
    frames = await frames_until_final(socket)
    await socket.disconnect()

    text = "".join(frames)
    thinking = text.index("The question is about cells.")
    sources = text.index('class="sources" hx-swap-oob')
    first_token = re.search(r'id="answer-tokens-\d+" hx-swap-oob="beforeend"', text).start()
    assert thinking < sources < first_token
    assert CHUNK_TEXT in text and "cells.pdf, page 2" in text
    answer = await database_sync_to_async(answer_of)(alice_thread)
    assert answer.status == Message.Status.DONE
    assert answer.content == ANSWER
    assert answer.thinking.startswith("The question is about cells.")
    assert answer.citations[0]["filename"] == "cells.pdf" and answer.citations[0]["page"] == 2
    assert answer.model == "gemma4:e4b" and answer.backend == "ollama"
    assert 'id="memory"' in frames[-1]


async def test_the_tool_result_goes_back_to_the_model_with_the_scope_in_both_prompts(
    fake_model, cell_notes, alice, alice_thread
):
    socket = await open_socket(alice, alice_thread.pk)
    await socket.send_json_to(
        {"content": "What do mitochondria do?", "document_ids": [str(cell_notes.pk)]}
    )
    await frames_until_final(socket)
    await socket.disconnect()

    agent_calls = [body for body in fake_model.chats if body.get("tools")]
    system, user = agent_calls[0]["messages"][0], agent_calls[0]["messages"][-1]
    assert "cells.pdf" in system["content"] and "cells.pdf" in user["content"]
    tool_messages = [m for m in agent_calls[1]["messages"] if m["role"] == "tool"]
    assert tool_messages and CHUNK_TEXT in tool_messages[0]["content"]
    question = await database_sync_to_async(
        lambda: alice_thread.messages.filter(role="user").get()
    )()
    assert question.scope == {"category_ids": [], "document_ids": [cell_notes.pk]}


async def test_a_calculator_call_is_answered_without_running_code(fake_model, alice, alice_thread):
    def script(body):
        if body.get("think"):
            return [part(thinking="Arithmetic.")]
        if body["messages"][-1]["role"] == "user":
            return [
                part(
                    tool_calls=[
                        ("calculator", {"expression": "__import__('os')"}),
                        ("calculator", {"expression": "9**9**9"}),
                        ("calculator", {"expression": "6*7"}),
                    ]
                )
            ]
        return [part("done")]

    fake_model.script = script
    socket = await open_socket(alice, alice_thread.pk)
    await socket.send_json_to({"content": "Compute things"})
    await frames_until_final(socket)
    await socket.disconnect()
    results = [m["content"] for m in fake_model.chats[-1]["messages"] if m["role"] == "tool"]
    assert "error" in results[0] and "error" in results[1]
    assert '"result": 42' in results[2]


async def test_stop_keeps_the_partial_answer_and_marks_it_stopped(fake_model, alice, alice_thread):
    fake_model.script = lambda body: (
        [] if body.get("think") else [part(f"word{i} ") for i in range(200)]
    )
    fake_model.delay = 0.02
    socket = await open_socket(alice, alice_thread.pk)
    await socket.send_json_to({"content": "Talk a lot"})
    while "word3" not in await socket.receive_from(timeout=scaled(10)):
        pass
    await socket.send_json_to({"action": "stop"})
    frames = await frames_until_final(socket)
    await socket.disconnect()
    assert 'class="message assistant stopped"' in frames[-1]
    answer = await database_sync_to_async(answer_of)(alice_thread)
    assert answer.status == Message.Status.STOPPED
    assert answer.content.startswith("word0 word1 word2 word3")
    assert "word199" not in answer.content


async def test_a_model_that_is_down_gives_a_clear_error(settings, fake_model, alice, alice_thread):
    settings.OLLAMA_HOST = "http://127.0.0.1:9"  # nothing listens on the discard port
    socket = await open_socket(alice, alice_thread.pk)
    await socket.send_json_to({"content": "Hello?"})
    frames = await frames_until_final(socket)
    await socket.disconnect()
    assert "not available" in frames[-1]
    answer = await database_sync_to_async(answer_of)(alice_thread)
    assert answer.status == Message.Status.FAILED


async def test_a_model_that_sends_garbage_fails_the_answer_not_the_socket(
    fake_model, alice, alice_thread
):
    fake_model.garbage = True
    socket = await open_socket(alice, alice_thread.pk)
    await socket.send_json_to({"content": "Hello?"})
    frames = await frames_until_final(socket)
    assert "The model failed" in frames[-1]
    fake_model.garbage = False
    await socket.send_json_to({"content": "Again?"})
    frames = await frames_until_final(socket)
    await socket.disconnect()
    assert 'class="message assistant done"' in frames[-1]


async def test_a_slow_model_shows_waiting_for_the_model(settings, fake_model, alice, alice_thread):
    settings.CHAT_WAITING_SECONDS = 0.2
    fake_model.first_delay = 0.8
    socket = await open_socket(alice, alice_thread.pk)
    await socket.send_json_to({"content": "Hello?"})
    frames = await frames_until_final(socket)
    await socket.disconnect()
    assert any("Waiting for the model" in frame for frame in frames)


async def test_edit_rewinds_the_history_and_regenerates(fake_model, alice, alice_thread):
    socket = await open_socket(alice, alice_thread.pk)
    for question in ("First question", "Second question"):
        await socket.send_json_to({"content": question})
        await frames_until_final(socket)
    first = await database_sync_to_async(
        lambda: alice_thread.messages.filter(role="user").first()
    )()
    await socket.send_json_to(
        {"action": "edit", "message_id": str(first.pk), "content": "Better first question"}
    )
    edited = await frames_until_final(socket)
    await socket.send_json_to({"action": "regenerate"})
    regenerated = await frames_until_final(socket)
    await socket.disconnect()

    # What the person may be typing in the question box meanwhile is left alone.
    assert 'id="question-box"' not in "".join(edited + regenerated)

    messages = await database_sync_to_async(lambda: list(alice_thread.messages.all()))()
    assert [m.role for m in messages] == ["user", "assistant"]
    assert messages[0].content == "Better first question"
    assert messages[1].status == Message.Status.DONE
    last_agent_call = [b for b in fake_model.chats if b.get("tools")][-1]
    assert "Second question" not in str(last_agent_call["messages"])


async def test_a_dropped_socket_does_not_lose_the_answer(fake_model, alice, alice_thread):
    fake_model.delay = 0.01
    socket = await open_socket(alice, alice_thread.pk)
    await socket.send_json_to({"content": "Tell me"})
    await socket.receive_from(timeout=scaled(5))
    await socket.disconnect()
    for _ in range(200):
        answer = await database_sync_to_async(answer_of)(alice_thread)
        if answer.status != Message.Status.STREAMING:
            break
        await asyncio.sleep(0.05)
    assert answer.status == Message.Status.DONE

    again = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/chat/{alice_thread.pk}/")
    again.scope["user"] = alice
    assert (await again.connect(timeout=scaled(5)))[0]
    shown = await again.receive_from(timeout=scaled(5))
    await again.disconnect()
    assert "ATP" in shown


async def test_bob_cannot_open_alices_thread_socket(alice_thread, bob):
    socket = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/chat/{alice_thread.pk}/")
    socket.scope["user"] = bob
    connected, _ = await socket.connect(timeout=scaled(5))
    assert not connected


async def test_a_thread_id_beyond_the_database_keys_is_refused_not_a_crash(alice):
    socket = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/chat/{2**63}/")
    socket.scope["user"] = alice
    connected, _ = await socket.connect(timeout=scaled(5))
    assert not connected


async def test_an_anonymous_visitor_cannot_open_a_thread_socket(alice_thread):
    from django.contrib.auth.models import AnonymousUser

    socket = WebsocketCommunicator(URLRouter(websocket_urlpatterns), f"/ws/chat/{alice_thread.pk}/")
    socket.scope["user"] = AnonymousUser()
    connected, _ = await socket.connect(timeout=scaled(5))
    assert not connected


@pytest.mark.parametrize(
    ("frame", "said"),
    [
        ("not json", "could not be read"),
        ('["a", "list"]', "could not be read"),
        ("[" * 100_000 + "]" * 100_000, "could not be read"),  # deeper than the parser goes
        ('{"content": "   "}', "Type a question first."),
        ('{"content": {"a": 1}}', "A question is text"),
        ('{"content": ["what", "is"]}', "A question is text"),
        ('{"action": "edit", "message_id": "1", "content": 12}', "A question is text"),
        ('{"content": "' + "x" * 8_001 + '"}', "limited to 8,000 characters"),
        ('{"content": "hi\\u0000"}', "cannot contain NUL characters"),
        ('{"action": "dance", "content": "hi"}', "Unknown action."),
        ('{"content": "hi", "document_ids": ["abc"]}', "by their ids"),
        ('{"content": "hi", "document_ids": ["' + "9" * 25 + '"]}', "No such document"),
        ('{"content": "hi", "attachment_ids": ["1", "2", "3", "4", "5", "6"]}', "At most 5"),
        ('{"action": "edit", "message_id": "12345", "content": "hi"}', "no longer in this chat"),
        ('{"action": "regenerate"}', "no question to answer again"),
    ],
)
async def test_a_bad_message_gets_a_clear_error_and_the_socket_stays_open(
    alice, alice_thread, frame, said
):
    socket = await open_socket(alice, alice_thread.pk)
    await socket.send_to(text_data=frame)
    reply = await socket.receive_from(timeout=scaled(5))
    assert 'id="composer-error"' in reply and said in reply
    assert 'id="question-box"' not in reply  # what was typed stays in the box
    await socket.send_to(text_data='{"content": ""}')
    assert "Type a question first." in await socket.receive_from(timeout=scaled(5))
    await socket.disconnect()
    assert not await database_sync_to_async(alice_thread.messages.exists)()


async def test_asking_in_a_chat_deleted_meanwhile_says_so(alice, alice_thread):
    socket = await open_socket(alice, alice_thread.pk)
    await database_sync_to_async(alice_thread.delete)()
    await socket.send_json_to({"content": "Still there?"})
    reply = await socket.receive_from(timeout=scaled(5))
    await socket.disconnect()
    assert "This chat has been deleted." in reply
    assert not await database_sync_to_async(Message.objects.exists)()


async def test_alice_cannot_edit_a_question_in_bobs_thread_through_her_socket(
    alice, bob, alice_thread
):
    def bobs_question() -> Message:
        thread = Thread.objects.create(owner=bob)
        thread.ask("Bob's private question", {}, "")
        return thread.messages.get(role=Message.Role.USER)

    question = await database_sync_to_async(bobs_question)()
    socket = await open_socket(alice, alice_thread.pk)
    await socket.send_json_to(
        {"action": "edit", "message_id": str(question.pk), "content": "Overwritten"}
    )
    reply = await socket.receive_from(timeout=scaled(5))
    await socket.disconnect()
    assert "no longer in this chat" in reply
    await database_sync_to_async(question.refresh_from_db)()
    assert question.content == "Bob's private question"
    kept = Message.objects.filter(thread_id=question.thread_id)
    assert await database_sync_to_async(kept.count)() == 2


async def test_a_follow_up_question_is_added_below_without_redrawing_the_conversation(
    fake_model, alice, alice_thread
):
    socket = await open_socket(alice, alice_thread.pk)
    await socket.send_json_to({"content": "First question"})
    await frames_until_final(socket)
    await socket.send_json_to({"content": "Second question"})
    started = await socket.receive_from(timeout=scaled(5))
    frames = await frames_until_final(socket)
    await socket.disconnect()

    assert 'hx-swap-oob="beforeend:#message-list"' in started
    # The question box is emptied; the scope chosen and what else the composer holds stay.
    assert '<div id="question-box" hx-swap-oob="true">' in started
    assert re.search(r'<textarea id="question"[^>]*></textarea>', started)
    assert 'name="category_ids"' not in started and 'id="composer"' not in started
    first_question, first_answer, _, second_answer = await database_sync_to_async(
        lambda: list(alice_thread.messages.all())
    )()
    assert "Second question" in started
    assert f'id="message-{first_question.pk}"' not in started
    assert f'id="message-{first_answer.pk}"' not in started
    assert 'class="message assistant done"' in frames[-1]
    assert second_answer.content == ANSWER and "Regenerate" in frames[-1]


async def test_pushed_frames_reach_the_page_while_the_sockets_thread_is_busy(alice, alice_thread):
    socket = await open_socket(alice, alice_thread.pk)
    release = threading.Event()
    # The thread the sockets share for the database, held as by a class's questions.
    busy = asyncio.ensure_future(sync_to_async(release.wait, thread_sensitive=True)(10))
    try:
        frame = {"type": "chat.html", "html": '<p id="pushed">Words</p>', "answer_id": 1}
        await get_channel_layer().group_send(group_for(alice_thread.pk), frame)
        assert await socket.receive_from(timeout=scaled(2)) == '<p id="pushed">Words</p>'
    finally:
        release.set()
        await busy
        await socket.disconnect()
