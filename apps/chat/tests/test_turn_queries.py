"""How many queries the chat socket runs to start an answer, pinned: a class asking at once
queues every question behind one web process, so each query there delays every later turn.
The number does not grow with the conversation, the person's other chats or their vault."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.chat.consumers import ChatConsumer
from apps.chat.models import Message, Thread
from tests.helpers.documents import make_category, make_document

pytestmark = pytest.mark.django_db

# The thread (is it still there?), the answers still running, the person's answers being written
# in all their chats (their fair share), the question, the thread's new
# title, the empty answer; then what the new turn shows: the thread's last messages and their
# attachments, the sidebar's chats (the composer's scope is not drawn again: it stays as
# chosen). Two more open and close the savepoint that stands in for the transaction in a test.
QUERIES_PER_QUESTION = 11


def socket_of(user, thread: Thread) -> ChatConsumer:
    consumer = ChatConsumer()
    consumer.scope = {"user": user, "url_route": {"kwargs": {"session_id": thread.pk}}}
    consumer.thread = thread
    return consumer


def queries_to_ask(user, thread: Thread, question: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        answer_id, html = socket_of(user, thread)._add_turn("ask", {"content": question})
    assert f'id="message-{answer_id}"' in html and question in html
    Message.objects.filter(pk=answer_id).update(status=Message.Status.DONE, content="Because.")
    return len(queries)


def test_a_question_runs_the_queries_it_needs_and_no_more(alice):
    make_category("Biology")
    make_document(alice, "cells.pdf")
    thread = Thread.objects.create(owner=alice)

    queries_to_ask(alice, thread, "Hello?")  # draws the file picker, as opening the page does

    assert queries_to_ask(alice, thread, "What do mitochondria do?") == QUERIES_PER_QUESTION
    assert queries_to_ask(alice, thread, "And ribosomes?") == QUERIES_PER_QUESTION


def test_a_question_runs_as_many_queries_in_a_long_chat_and_a_full_vault(alice):
    thread = Thread.objects.create(owner=alice)
    for number in range(10):
        make_category(f"Topic {number}")
        make_document(alice, f"notes-{number}.pdf")
        Thread.objects.create(owner=alice)
        queries_to_ask(alice, thread, f"Question {number}?")

    assert queries_to_ask(alice, thread, "One more?") == QUERIES_PER_QUESTION
