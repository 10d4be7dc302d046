"""Chat threads over the API, asking with an NDJSON stream, and speech-to-text by the jobs
worker."""

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Literal

from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.http import HttpRequest, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from ninja import Field, File, Query, Router, Schema, Status
from ninja.files import UploadedFile
from redis.exceptions import RedisError

from apps.accounts.api import ErrorOut, Id, Said, said
from apps.chat import frames, pushes, tasks, transcriptions, turns
from apps.chat.conversation import group_for
from apps.chat.errors import TranscriptionError
from apps.chat.models import Message, Thread, Transcription

router = Router(tags=["chat"])


class SessionIn(Schema):
    title: Said = said(200, default="New chat")


NEW_CHAT = SessionIn()  # POST without a body: every field is optional


class SessionPatch(Schema):
    title: Said | None = said(200, default=None)


NO_CHANGE = SessionPatch()  # PATCH without a body: changes nothing, so another's thread is a 404


class SessionOut(Schema):
    id: Id
    title: str
    created_at: datetime
    updated_at: datetime


class MessageOut(Schema):
    id: Id
    role: str
    content: str
    thinking: str
    status: str
    error: str
    scope: dict
    scope_label: str
    citations: list[dict]
    backend: str
    model: str
    attachments: list[Id]
    created_at: datetime

    @staticmethod
    def resolve_attachments(message: Message) -> list[int]:
        return [attachment.pk for attachment in message.attachments.all()]


class SessionDetail(SessionOut):
    messages: list[MessageOut]

    @staticmethod
    def resolve_messages(thread: Thread) -> list[Message]:
        return list(thread.messages.prefetch_related("attachments"))


class AskIn(Schema):
    content: Said = said(turns.MAX_QUESTION)
    category_ids: list[Id] = []
    document_ids: list[Id] = []
    attachments: list[Id] = Field([], max_length=turns.MAX_ATTACHMENTS)


class TranscriptOut(Schema):
    id: Id
    status: Literal["transcribing", "ready", "failed"]
    text: str
    progress: int = Field(ge=0, le=100, description="Percent transcribed.")
    seconds: float | None = Field(description="The recording's length, once read.")
    error: str


def own_thread(request: HttpRequest, session_id: Id) -> Thread:
    return get_object_or_404(Thread.objects.visible_to(request.auth), pk=session_id)


@router.get("/sessions", response=list[SessionOut])
def list_sessions(request: HttpRequest):
    return Thread.objects.visible_to(request.auth)


@router.post("/sessions", response={201: SessionOut})
def create_session(request: HttpRequest, payload: SessionIn = NEW_CHAT):
    titled = payload.title != "New chat"
    return Status(
        201, Thread.objects.create(owner=request.auth, title=payload.title, titled=titled)
    )


@router.get("/sessions/{session_id}", response={200: SessionDetail, 404: ErrorOut})
def get_session(request: HttpRequest, session_id: Id):
    return own_thread(request, session_id)


@router.patch("/sessions/{session_id}", response={200: SessionOut, 400: ErrorOut, 404: ErrorOut})
def rename_session(request: HttpRequest, session_id: Id, payload: SessionPatch = NO_CHANGE):
    thread = own_thread(request, session_id)
    if payload.title is None:
        return thread
    # Not blank (a `Said`), so something is left once its spaces are joined.
    thread.title, thread.titled = " ".join(payload.title.split()), True
    thread.save()
    return thread


@router.delete("/sessions/{session_id}", response={204: None, 404: ErrorOut})
def delete_session(request: HttpRequest, session_id: Id):
    thread = own_thread(request, session_id)
    thread.request_stop()
    thread.delete()
    return Status(204, None)


@router.post(
    "/sessions/{session_id}/messages",
    response={200: None, 400: ErrorOut, 404: ErrorOut, 409: ErrorOut, 429: ErrorOut},
)
def ask(request: HttpRequest, session_id: Id, payload: AskIn):
    """Streams NDJSON lines {"type": thinking|metadata|text|memory|error, "data": ...}. 429
    with Retry-After past the person's questions per minute or answers being written at once."""
    thread = own_thread(request, session_id)
    answer = turns.ask(
        request.auth,
        thread,
        payload.content,
        payload.category_ids,
        payload.document_ids,
        payload.attachments,
    )
    return StreamingHttpResponse(ndjson(thread.pk, answer.pk), content_type="application/x-ndjson")


@router.post("/sessions/{session_id}/stop", response={204: None, 404: ErrorOut})
def stop(request: HttpRequest, session_id: Id):
    """Stop the answer being written in the thread, whichever process asked for it."""
    pushes.stop(own_thread(request, session_id))
    return Status(204, None)


async def ndjson(thread_id: int, answer_id: int) -> AsyncIterator[bytes]:
    """The answer's events as JSON lines, as the worker pushes them to the thread's group. A
    client that goes away does not stop the answer: it is written and saved all the same."""
    layer = get_channel_layer()
    channel = await layer.new_channel()
    group = group_for(thread_id)
    await layer.group_add(group, channel)
    # One receive, kept through the silences: the pub/sub layer lets go of a channel when its
    # receive is cancelled, and drops what arrives for it until the next one.
    receiving = asyncio.ensure_future(layer.receive(channel))
    try:
        await database_sync_to_async(tasks.enqueue)(answer_id)
        while True:
            done, _ = await asyncio.wait({receiving}, timeout=settings.CHAT_STALE_SECONDS / 2)
            if not done:
                # Silence: a worker that died leaves the answer interrupted, and says so; an
                # answer stopped before any worker took it just ends.
                answer = Message.objects.filter(pk=answer_id)
                if await database_sync_to_async(pushes.interrupt)(answer.stale()):
                    continue  # its last lines are on their way
                if not await answer.filter(status=Message.Status.STREAMING).aexists():
                    status = await answer.values_list("status", flat=True).afirst()
                    yield json.dumps(frames.end_line(answer_id, status)).encode() + b"\n"
                    return
                continue
            message = receiving.result()
            receiving = asyncio.ensure_future(layer.receive(channel))
            if message.get("answer_id") != answer_id:
                continue
            for line in message["lines"]:
                yield json.dumps(line, ensure_ascii=False).encode() + b"\n"
            if message.get("final"):
                return
    finally:
        await layer.group_discard(group, channel)
        await let_go(layer, channel, receiving)


async def let_go(layer, channel: str, receiving: asyncio.Task) -> None:
    """Unsubscribe the stream's channel. The pub/sub layer does so only for a receive cancelled
    while it waits: one cancelled before it ran, or one that got a message, leaves it."""
    while True:
        await asyncio.sleep(0)  # the receive's first step: it waits for a message
        receiving.cancel()
        try:
            await receiving
        except (asyncio.CancelledError, RedisError, OSError):  # let go, or Redis is gone
            return
        receiving = asyncio.ensure_future(layer.receive(channel))


@router.post(
    "/transcribe",
    response={
        200: TranscriptOut,
        202: TranscriptOut,
        400: ErrorOut,
        413: ErrorOut,
        429: ErrorOut,
        503: ErrorOut,
    },
    url_name="chat_transcribe",
)
async def transcribe(
    request: HttpRequest,
    file: File[UploadedFile],
    wait: int | None = Query(None, ge=0, description="Seconds to wait at most; 0: not at all."),
):
    """Audio → text. The jobs worker transcribes it (this process never decodes audio) and the
    answer waits for it, CHAT_TRANSCRIBE_WAIT_SECONDS at most: 200 with the text, or the
    failure's status (400 not audio, 413 too long, 503 no speech model), or 503 when no worker
    finished it in time. A client that asks for `wait` seconds (fewer) gets 202 instead while it
    is under way, to be asked for at GET /chat/transcriptions/{id}. 429 with Retry-After past
    the person's share."""
    transcription = await database_sync_to_async(start_transcription)(request.auth, file)
    longest = settings.CHAT_TRANSCRIBE_WAIT_SECONDS
    seconds = longest if wait is None else min(wait, longest)
    transcription = await transcriptions.wait(transcription.pk, seconds)
    if transcription.status == Transcription.Status.FAILED:
        raise TranscriptionError(transcription.error, transcription.error_status)
    if transcription.status == Transcription.Status.READY:
        return Status(200, transcription)
    if wait is None:  # a client that did not ask to come back expects the text or an error
        raise TranscriptionError(
            f"The recording was not transcribed within {longest} s (the server is busy); its "
            f"text will be at GET /api/v1/chat/transcriptions/{transcription.pk}.",
            503,
        )
    return Status(202, transcription)


def start_transcription(user, upload: UploadedFile) -> Transcription:
    transcription = transcriptions.accept(user, upload)
    tasks.enqueue_transcription(transcription.pk)
    return transcription


@router.get(
    "/transcriptions/{transcription_id}",
    response={200: TranscriptOut, 404: ErrorOut},
    url_name="chat_transcription",
)
def get_transcription(request: HttpRequest, transcription_id: Id):
    """A transcription as it is: its `progress` in percent while `transcribing`, its `text` once
    `ready`, why not once `failed` (`error`)."""
    transcription = get_object_or_404(
        Transcription.objects.visible_to(request.auth), pk=transcription_id
    )
    transcription.settle()  # its worker died: say so instead of transcribing… forever
    return transcription
