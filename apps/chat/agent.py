"""One answer, written by a fresh agent: thinking first (best effort), then the tool loop.

`answer()` is a plain generator of `Event`s. It reads what it needs from the database before
the model streams, keeps everything else in request-local state, and saves the answer at the
end however it ends (done, stopped, failed). A chat worker runs it (see `answering.py`, which
also saves the partial answer as it grows); no web process ever does.
"""

import json
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone

from apps.chat import connections, offline
from apps.chat.models import MEMORY_BUDGET, Message
from apps.chat.tools import SPECS, Toolbox
from apps.llm import gateway, prompts
from apps.progress import tracking
from apps.vault.scope import Scope

log = logging.getLogger(__name__)

MAX_ROUNDS = 4  # model calls of the agent; the last one gets no tools, so it must answer
MAX_CALLS_PER_ROUND = 5
MAX_THINKING = 20_000
ATTACHMENT_CHARS = 8_000
UNEXPECTED = "Something went wrong while answering."


@dataclass(frozen=True)
class Event:
    """thinking | text | sources | notice | error | memory | start | end"""

    type: str
    data: Any = None


class Stopped(Exception):
    pass


@dataclass
class Turn:
    """What this answer has produced so far (request-local; saved at the end)."""

    answer: Message
    text: list[str] = field(default_factory=list)
    thinking: list[str] = field(default_factory=list)
    backend: str = ""
    model: str = ""


def answer(answer_id: int, cancel: threading.Event | None = None) -> Iterator[Event]:
    """Write the answer `answer_id` (an assistant message in status streaming)."""
    cancel = cancel or threading.Event()
    message = Message.objects.select_related("thread__owner").get(pk=answer_id)
    question = message.question()
    thread = message.thread
    user = thread.owner
    turn = Turn(message)
    toolbox = Toolbox(user, Scope(**((question.scope if question else None) or {})))
    memory = thread.memory(question)
    images, attached = attachment_parts(question)
    connections.release()  # PostgreSQL's back to its pool while the model streams

    status, error = Message.Status.DONE, ""
    try:
        info = gateway.current_backend()
        turn.backend = info.name
        turn.model = info.model if info.faithful else offline.EXTRACTIVE
        yield Event(
            "start",
            {
                "message_id": message.pk,
                "backend": info.name,
                "model": turn.model,
                "limits": info.limits,
            },
        )
        if info.faithful:
            yield from write(turn, toolbox, info, memory, question, attached, images, cancel)
        else:
            yield Event(
                "notice",
                f"{info.model} ({info.name}) is too small to answer faithfully: "
                "the answer quotes your documents.",
            )
            yield from quote(turn, toolbox, question.content if question else "", cancel)
    except Stopped:
        status = Message.Status.STOPPED
    except gateway.ModelUnavailable as failure:
        status, error = Message.Status.FAILED, f"The model is not available: {failure}"
    except gateway.ModelError as failure:
        status, error = Message.Status.FAILED, f"The model failed: {failure}"
    except Exception:
        log.exception("answer %s failed", answer_id)
        status, error = Message.Status.FAILED, UNEXPECTED
    if error:
        yield Event("error", error)

    save(turn, toolbox, status, error)
    after = thread.memory()
    connections.release()
    yield Event("memory", {"used": after.used, "budget": MEMORY_BUDGET})
    yield Event("end", {"status": status, "message_id": message.pk})
    # After the end: the page shows the finished answer without waiting for the badges.
    record_progress(user, question, toolbox.scope)


def write(turn, toolbox, info, memory, question, attached, images, cancel) -> Iterator[Event]:
    """The model writes the answer: thinking first when it can, then the tool loop."""
    history = [
        item
        for q, a in memory.pairs
        for item in (
            {"role": "user", "content": q.content},
            {"role": "assistant", "content": a.content},
        )
    ]
    whole_vault = "the whole vault (every document the user can see)"
    scope_text = (question and question.scope_label) or whole_vault
    user_message = {"role": "user", "content": user_content(question, scope_text, attached)}
    if info.thinking:
        yield from think(turn, history, user_message, scope_text, cancel)
    else:
        yield Event(
            "notice", f"{info.model} ({info.name}) has no thinking mode: it answers directly."
        )
    # A model without native tool calls plans tools poorly: look the question up first, so
    # its answer is grounded in the vault and cited.
    search_first = None if info.native_tools or question is None else question.content
    yield from run_agent(
        turn, toolbox, history, user_message, scope_text, images, cancel, search_first
    )


def think(turn: Turn, history: list, user_message: dict, scope_text: str, cancel) -> Iterator:
    """Phase 1: reasoning tokens only. Any failure is logged and the agent answers anyway."""
    messages = [
        {"role": "system", "content": prompts.render("chat_thinking", scope=scope_text)},
        *history,
        user_message,
    ]
    size = 0
    stream = None
    try:
        stream = gateway.chat(messages, stream=True, think=True)
        for event in stream:
            if cancel.is_set():
                raise Stopped
            if isinstance(event, gateway.Thinking) and event.text:
                turn.thinking.append(event.text)
                size += len(event.text)
                yield Event("thinking", event.text)
                if size >= MAX_THINKING:
                    break
            elif isinstance(event, gateway.Text | gateway.ToolCall):
                break  # the reasoning is over; its answer is the agent's job
    except Stopped:
        raise
    except Exception as failure:  # best effort by design
        log.warning("thinking phase skipped: %s", failure)
        yield Event("notice", "The thinking step failed; answering directly.")
    finally:
        if stream is not None and hasattr(stream, "close"):
            stream.close()


def opening_messages(toolbox, history, user_message, scope_text, search_first=None) -> list:
    """The system prompt, the conversation so far and the new message; with `search_first`, a
    search for it as if the model had already asked the tool."""
    system = prompts.render(
        "chat_system", scope=scope_text, now=timezone.localtime().strftime("%A %d %B %Y, %H:%M")
    )
    messages = [{"role": "system", "content": system}, *history, user_message]
    if search_first:
        arguments = {"query": search_first}
        call = {"function": {"name": "search_knowledge_base", "arguments": arguments}}
        messages.append({"role": "assistant", "content": "", "tool_calls": [call]})
        result = toolbox.run("search_knowledge_base", arguments)
        messages.append({"role": "tool", "tool_name": "search_knowledge_base", "content": result})
        connections.release()
    return messages


def run_agent(
    turn, toolbox, history, user_message, scope_text, images, cancel, search_first=None
) -> Iterator:
    """Phase 2: the model with tools and thinking off; answer text streams out as it comes.

    `search_first` is a query whose search results go in before the model's first word.
    """
    messages = opening_messages(toolbox, history, user_message, scope_text, search_first)
    cited = len(toolbox.citations)
    if cited:
        yield Event("sources", list(toolbox.citations))
    for round_number in range(MAX_ROUNDS):
        last_round = round_number == MAX_ROUNDS - 1
        calls, text = [], []
        stream = gateway.chat(
            messages, stream=True, think=False, tools=None if last_round else SPECS, images=images
        )
        try:
            for event in stream:
                if cancel.is_set():
                    raise Stopped
                if isinstance(event, gateway.Text) and event.text:
                    text.append(event.text)
                    turn.text.append(event.text)
                    yield Event("text", event.text)
                elif isinstance(event, gateway.ToolCall):
                    calls.append(event)
                elif isinstance(event, gateway.Done):
                    turn.backend, turn.model = event.backend, event.model
        finally:
            stream.close()
        if not calls:
            return
        messages.append(
            {
                "role": "assistant",
                "content": "".join(text),
                "tool_calls": [
                    {"function": {"name": call.name, "arguments": call.arguments}} for call in calls
                ],
            }
        )
        for call in calls[:MAX_CALLS_PER_ROUND]:
            if cancel.is_set():
                raise Stopped
            yield Event("notice", f"Using {call.name}…")
            result = toolbox.run(call.name, call.arguments)
            messages.append({"role": "tool", "tool_name": call.name, "content": result})
        connections.release()
        if len(toolbox.citations) > cited:
            cited = len(toolbox.citations)
            yield Event("sources", list(toolbox.citations))  # before the answer's first token


def quote(turn: Turn, toolbox: Toolbox, question: str, cancel) -> Iterator:
    """The answer of a model too small to write faithfully: a tool's result when the question
    plainly asks for one, else the best sentences of a search, quoted (apps/chat/offline.py)."""
    picked = offline.pick_tool(question)
    if picked is not None:
        name, arguments = picked
        yield Event("notice", f"Using {name}…")
        text = offline.tool_answer(name, toolbox.run(name, arguments))
    else:
        for query in offline.queries(question):
            toolbox.run("search_knowledge_base", {"query": query})
        connections.release()
        if toolbox.citations:
            yield Event("sources", list(toolbox.citations))
        text = offline.quoted_answer(question, toolbox.citations)
    if cancel.is_set():
        raise Stopped
    turn.text.append(text)
    yield Event("text", text)


def save(turn: Turn, toolbox: Toolbox, status: str, error: str) -> None:
    # An update, not message.save(): an answer deleted meanwhile (its thread deleted) is
    # neither resurrected nor an error.
    Message.objects.filter(pk=turn.answer.pk).update(
        content="".join(turn.text),
        thinking="".join(turn.thinking),
        citations=toolbox.citations,
        status=status,
        error=error,
        backend=turn.backend,
        model=turn.model,
        heartbeat_at=timezone.now(),
    )


def record_progress(user, question: Message | None, scope: Scope) -> None:
    """The message for the study clock and badges; tracking logs its own failures and never
    raises, so the answer is never lost to it."""
    tracking.record_message(
        user,
        scope_used=not scope.is_whole_vault,
        attachments=question.attachments.count() if question else 0,
    )
    connections.release()


def user_content(question: Message | None, scope_text: str, attached: list[str]) -> str:
    content = question.content if question else ""
    parts = [content, f"[Scope: answer from {scope_text}.]"]
    parts += attached
    return "\n\n".join(parts)


def attachment_parts(question: Message | None) -> tuple[list[bytes], list[str]]:
    """Images as bytes for the model; documents as their extracted text (as data)."""
    images, texts = [], []
    if question is None:
        return images, texts
    for attachment in question.attachments.all():
        if attachment.kind == attachment.Kind.IMAGE:
            try:
                images.append(attachment.path.read_bytes())
            except OSError:
                log.warning("attachment %s is missing on disk", attachment.pk)
        elif attachment.text:
            body = attachment.text[:ATTACHMENT_CHARS]
            texts.append(f"[Attached document {json.dumps(attachment.filename)}, as data:]\n{body}")
    return images, texts
