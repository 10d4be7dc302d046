"""The chat websocket: one per open thread, pushing rendered partials as out-of-band swaps.

Everyone with the thread open is in its group, so a second tab, or a page that reconnects
after a drop, sees the answer that is being written; the answer itself is written by a
`Generation` that does not depend on any socket staying open.
"""

import asyncio
import json
import logging
import time

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.template.loader import render_to_string

from apps.accounts.sessions import account_group
from apps.chat import turns
from apps.chat.conversation import conversation_context
from apps.chat.models import Thread
from apps.chat.streaming import Generation, running, stop

log = logging.getLogger(__name__)

BATCH_SECONDS = 0.05  # tokens are pushed together, at most every 50 ms
_tasks: set[asyncio.Task] = set()  # keeps broadcasts alive while their sockets come and go

# Which partials are pushed when: a page (re)connecting gets the whole conversation; a new
# question is added below it (an edit or a regenerate, which drop messages, redraw it) and
# clears the composer; a finished answer replaces just its own message (and leaves whatever
# the person is typing alone).
CONNECT_PARTS = ("message-list", "thread-list", "composer-buttons", "memory")
START_PARTS = ("message-list", "thread-list", "composer", "memory")
ASK_PARTS = ("new-turn", "thread-list", "composer", "memory")
END_PARTS = ("message", "thread-list", "composer-buttons", "memory")


def group_for(thread_id: int) -> str:
    return f"chat-thread-{thread_id}"


def fragment(partial: str, **context) -> str:
    return render_to_string(f"chat/thread.html#{partial}", {"oob": True, **context})


class ChatConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope["user"]
        thread_id = int(self.scope["url_route"]["kwargs"]["session_id"])
        self.thread = await database_sync_to_async(self._find_thread)(user, thread_id)
        if self.thread is None:
            await self.close()
            return
        self.group = group_for(thread_id)
        await database_sync_to_async(self.thread.settle_interrupted)()
        await self.accept()
        await self.channel_layer.group_add(self.group, self.channel_name)
        # A password change or a revoked session closes this socket (apps/accounts/sessions.py).
        await self.channel_layer.group_add(account_group(user.pk), self.channel_name)
        # Whatever happened while this page was away (a finished answer) is shown now.
        await self.send(text_data=await self._render_messages())

    @staticmethod
    def _find_thread(user, thread_id: int) -> Thread | None:
        return Thread.objects.visible_to(user).filter(pk=thread_id).first()

    async def disconnect(self, code: int) -> None:
        if getattr(self, "group", None):
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
        # Not JSON, or a binary frame: answered like any other unusable message, not a crash.
        try:
            content = await self.decode_json(text_data or "")
        except json.JSONDecodeError:
            content = None
        await self.receive_json(content)

    async def receive_json(self, content, **kwargs) -> None:
        if not isinstance(content, dict):
            error = "That message could not be read; send the form again."
            await self.send(text_data=fragment("composer-error", error=error))
            return
        action = content.get("action") or "ask"
        if action == "stop":
            stop(self.thread.pk)
            return
        try:
            answer_id = await database_sync_to_async(self._start)(action, content)
        except turns.AskError as error:
            await self.send(text_data=fragment("composer-error", error=str(error)))
            return
        generation = Generation(answer_id, self.thread.pk)
        parts = ASK_PARTS if action == "ask" else START_PARTS
        await self._push(await self._render_messages(parts=parts))
        task = asyncio.create_task(broadcast(generation, self.thread.pk, self.channel_layer))
        _tasks.add(task)
        task.add_done_callback(_tasks.discard)

    def _start(self, action: str, content: dict) -> int:
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
        return answer.pk

    async def _render_messages(self, parts=CONNECT_PARTS) -> str:
        generation = running.get(self.thread.pk)
        return await database_sync_to_async(render_conversation)(
            self.thread.pk, generation, parts=parts
        )

    async def _push(self, html: str) -> None:
        await self.channel_layer.group_send(self.group, {"type": "chat.html", "html": html})

    async def chat_html(self, event: dict) -> None:
        await self.send(text_data=event["html"])


def render_conversation(
    thread_id: int, generation: Generation | None, message_id: int | None = None, parts=END_PARTS
) -> str:
    thread = Thread.objects.get(pk=thread_id)
    context = conversation_context(thread, live=generation)
    conversation = context["conversation"]
    html = []
    for name in parts:
        if name == "message":
            message = next(m for m in conversation if m.pk == message_id)
            html.append(fragment(name, **{**context, "message": message}))
        elif name == "new-turn" and len(conversation) > 2:
            # Just the new question and its answer; the first one redraws the list, which
            # clears the starters.
            html.append(fragment(name, **context, added=conversation[-2:]))
        elif name == "new-turn":
            html.append(fragment("message-list", **context))
        else:
            html.append(fragment(name, **context))
    return "".join(html)


async def broadcast(generation: Generation, thread_id: int, layer) -> None:
    """Forward one answer's events to everyone watching the thread, tokens in batches."""
    group = group_for(thread_id)
    message_id = generation.answer_id
    pending = {"text": [], "thinking": []}
    last_flush = last_event = time.monotonic()
    waiting_shown = False

    async def push(html: str) -> None:
        await layer.group_send(group, {"type": "chat.html", "html": html})

    async def flush() -> None:
        """One frame for everything that arrived since the last one."""
        nonlocal last_flush
        last_flush = time.monotonic()
        html = ""
        for kind, partial in (("thinking", "thinking-tokens"), ("text", "answer-tokens")):
            if pending[kind]:
                html += fragment(partial, message_id=message_id, text="".join(pending[kind]))
                pending[kind].clear()
        if html:
            await push(html)

    try:
        async for event in generation.events(idle=BATCH_SECONDS):
            now = time.monotonic()
            if event is None:
                await flush()
                if not waiting_shown and now - last_event > settings.CHAT_WAITING_SECONDS:
                    waiting_shown = True
                    await push(
                        fragment(
                            "status",
                            message_id=message_id,
                            waiting=True,
                            notice="Waiting for the model…",
                        )
                    )
                continue
            last_event = now
            if waiting_shown:
                waiting_shown = False
                await push(fragment("status", message_id=message_id, notice=""))
            if generation.cancel.is_set() and event.type in ("text", "thinking"):
                continue  # stopped: the page already knows, the rest is not shown
            if event.type in pending:
                pending[event.type].append(event.data)
                if now - last_flush >= BATCH_SECONDS:
                    await flush()
                continue
            await flush()
            if event.type == "sources":
                await push(fragment("sources", message_id=message_id, citations=event.data))
            elif event.type == "notice":
                await push(fragment("status", message_id=message_id, notice=event.data))
            elif event.type == "start":
                await push(fragment("status", message_id=message_id, notice="Working on it…"))
        await flush()
    except Exception:
        log.exception("broadcasting answer %s failed", message_id)
    finally:
        try:
            html = await database_sync_to_async(render_conversation)(thread_id, None, message_id)
            await push(html)
        except Exception:
            log.exception("could not push the final answer %s", message_id)
