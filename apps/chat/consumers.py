"""The chat websocket: one per open thread. It takes what the person sends (a question, an edit,
a regenerate, stop) and relays what the chat workers push to the thread's group.

Everyone with the thread open is in its group, so a second tab, a page that reconnects after a
drop, or one served by another web process sees the answer that is being written: the answer
is written by a worker (tasks.py) and saved as it grows, never by this process.
"""

import asyncio
import json
import logging

from asgiref.sync import async_to_sync
from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from apps.accounts.ratelimits import RateLimited
from apps.accounts.sessions import account_group
from apps.chat import pushes, tasks, turns
from apps.chat.connections import database_sync_to_async
from apps.chat.conversation import (
    WHOLE_PARTS,
    fragment,
    group_for,
    render_parts,
    render_thread,
    render_turn,
)
from apps.chat.models import Message, Thread

log = logging.getLogger(__name__)


class ChatConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope["user"]
        thread_id = int(self.scope["url_route"]["kwargs"]["session_id"])
        self.thread = await database_sync_to_async(self._find_thread)(user, thread_id)
        if self.thread is None:
            await self.close()
            return
        self.group = group_for(thread_id)
        await database_sync_to_async(pushes.interrupt)(self._stale())
        await self.accept()
        # In the group before the conversation is read: nothing pushed in between is missed
        # (what overlaps is put right by the worker's next whole-answer frame).
        await self.channel_layer.group_add(self.group, self.channel_name)
        # A password change or a revoked session closes this socket (apps/accounts/sessions.py).
        await self.channel_layer.group_add(account_group(user.pk), self.channel_name)
        await self.send(
            text_data=await database_sync_to_async(render_parts)(thread_id, WHOLE_PARTS)
        )
        self.watchdog = asyncio.create_task(self._watch())

    @staticmethod
    def _find_thread(user, thread_id: int) -> Thread | None:
        return Thread.objects.visible_to(user).filter(pk=thread_id).first()

    def _stale(self):
        return Message.objects.filter(thread_id=self.thread.pk).stale()

    async def _watch(self) -> None:
        """While the page is open, an answer whose worker died is shown as interrupted."""
        while True:
            await asyncio.sleep(settings.CHAT_STALE_SECONDS / 2)
            await database_sync_to_async(pushes.interrupt)(self._stale())

    async def disconnect(self, code: int) -> None:
        if getattr(self, "group", None):
            self.watchdog.cancel()
            await self.channel_layer.group_discard(self.group, self.channel_name)
            await self.channel_layer.group_discard(
                account_group(self.scope["user"].pk), self.channel_name
            )

    async def account_signed_out(self, event: dict) -> None:
        session = self.scope.get("session")
        keys = event["session_keys"]
        if keys is None or (session is not None and session.session_key in keys):
            await self.close()

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        # Not JSON, JSON nested too deep for the parser, or a binary frame: answered like any
        # other unusable message, not a crash.
        try:
            content = await self.decode_json(text_data or "")
        except (json.JSONDecodeError, RecursionError):
            content = None
        await self.receive_json(content)

    async def receive_json(self, content, **kwargs) -> None:
        if not isinstance(content, dict):
            error = "That message could not be read; send the form again."
            await self.send(text_data=fragment("composer-error", error=error))
            return
        action = content.get("action") or "ask"
        if action == "stop":
            await database_sync_to_async(pushes.stop)(self.thread)
            return
        try:
            await database_sync_to_async(self._start)(action, content)
        except (turns.AskError, RateLimited) as error:
            # Shown under the composer, which keeps the typed question for a second try.
            await self.send(text_data=fragment("composer-error", error=str(error)))

    def _start(self, action: str, content: dict) -> None:
        """Start an answer: the new turn goes to every page of the thread, then the answer to
        a worker (so the turn is there before the worker pushes anything into it). All in one
        go off the event loop: when a class asks at once, an answer is queued as soon as its
        own turn is shown, not after every other question's. In the one thread the sockets
        share, one question after the other: side by side, 30 questions asked at once waited
        on each other for the interpreter and SQLite's write lock, each many times its own
        few milliseconds of work (docs/benchmarks.md, chat benchmark)."""
        answer_id, html = self._add_turn(action, content)
        turn = {"type": "chat.html", "html": html}
        async_to_sync(self.channel_layer.group_send)(self.group, turn)
        tasks.enqueue(answer_id)

    def _add_turn(self, action: str, content: dict) -> tuple[int, str]:
        """The new question and its empty answer; the answer's id and the frame showing them."""
        user = self.scope["user"]
        thread = self._find_thread(user, self.thread.pk)
        if thread is None:
            raise turns.AskError("This chat has been deleted.")
        if action == "ask":
            answer = turns.ask(
                user,
                thread,
                content.get("content"),
                content.get("category_ids"),
                content.get("document_ids"),
                content.get("attachment_ids"),
            )
        elif action == "edit":
            answer = turns.edit(user, thread, content.get("message_id"), content.get("content"))
        elif action == "regenerate":
            answer = turns.regenerate(user, thread)
        else:
            raise turns.AskError("Unknown action.")
        thread.owner = user  # the thread was read by its owner: no second read of the user
        if action == "ask":
            return answer.pk, render_turn(thread)
        return answer.pk, render_thread(thread, WHOLE_PARTS)

    async def dispatch(self, message: dict) -> None:
        # Channels' own dispatch closes the database connections before every handler, a trip
        # to the one thread the sockets share. Every handler here that reads the database does
        # it through connections.database_sync_to_async, which gives the connection back around
        # each call as the database needs, so that trip is left out: a frame pushed by a worker
        # would wait there behind every question of a class asking at once, and SQLite's
        # connection would be opened again for each question.
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def chat_html(self, event: dict) -> None:
        if event["html"]:
            await self.send(text_data=event["html"])
