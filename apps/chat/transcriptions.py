"""Voice input: a recording becomes the text of a question.

The web process checks the upload's size and the person's share, stores it under DATA_DIR with
a generated name and never opens it; a worker of the `celery` queue decodes it in the reading
sandbox (no more than CHAT_MAX_AUDIO_SECONDS of it) and runs Whisper on the samples, saving its
progress as it goes, then deletes the recording (docs/chat.md#voice).
"""

import asyncio
import base64
import time
import uuid
from datetime import timedelta

import numpy as np
from channels.db import database_sync_to_async
from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.utils import timezone

from apps.accounts.ratelimits import RateLimited, check_person
from apps.chat.errors import TranscriptionError
from apps.chat.models import Transcription, recordings_dir
from apps.jobs.lifecycle import run_claimed
from apps.llm import gateway
from apps.vault import readers

READ_TIMEOUT = 60  # decoding two minutes of audio takes well under a second
READ_MEMORY_MB = 1024
BUSY_RETRY_SECONDS = 5  # a recording of a few sentences takes about that long
POLL_SECONDS = 0.5  # how often a waiting API call looks at the row
UNEXPECTED = "The recording could not be transcribed; record it again."


def accept(user, upload: UploadedFile | None) -> Transcription:
    """Store a recording as a transcription waiting for the worker (tasks.transcribe), or refuse
    it: no speech model (503), too large (413), one of the person's still being transcribed or
    past RATE_LIMIT_TRANSCRIPTIONS (429)."""
    if not gateway.speech_available():
        raise TranscriptionError("Speech-to-text is not available on this server.", 503)
    if upload is None:
        raise TranscriptionError("Choose a recording to transcribe.")
    if upload.size > settings.CHAT_MAX_AUDIO_MB * 1024 * 1024:
        raise TranscriptionError(f"Audio is limited to {settings.CHAT_MAX_AUDIO_MB} MB.", 413)
    check_fair_share(user)
    forget_old()
    stored = f"{uuid.uuid4().hex}.audio"
    folder = recordings_dir()
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / stored).open("wb") as out:
        for piece in upload.chunks():
            out.write(piece)
    return Transcription.objects.create(owner=user, stored_name=stored, size_bytes=upload.size)


def check_fair_share(user) -> None:
    """A person's share of the jobs worker (docs/classroom.md#a-fair-share-of-the-machine)."""
    limit = settings.CHAT_TRANSCRIPTIONS_IN_PROGRESS
    if limit and Transcription.objects.alive().filter(owner=user).count() >= limit:
        raise RateLimited(
            f"You already have {limit} recording{'s' if limit > 1 else ''} being transcribed: "
            "send the next one when it has finished.",
            BUSY_RETRY_SECONDS,
        )
    check_person(user, "RATE_LIMIT_TRANSCRIPTIONS", "recordings")


def forget_old() -> None:
    """Everyone's transcriptions older than CHAT_UNSENT_ATTACHMENT_HOURS go, with any recording
    a dead worker left (there is no scheduler: each new recording clears them)."""
    cutoff = timezone.now() - timedelta(hours=settings.CHAT_UNSENT_ATTACHMENT_HOURS)
    old = Transcription.objects.filter(created_at__lt=cutoff)
    for transcription in old:
        transcription.path.unlink(missing_ok=True)
    old.delete()


def transcribe(transcription_id: int, worker: str) -> None:
    """The jobs worker's job (apps/jobs' run_claimed): the recording's text, or the reason it
    has none; the recording is deleted either way."""
    transcription = Transcription.objects.filter(pk=transcription_id).first()
    if transcription is not None:
        run_claimed(
            Transcription.objects,
            transcription_id,
            worker,
            lambda: words_of(transcription),
            unexpected=UNEXPECTED,
            on_error=lambda: transcription.path.unlink(missing_ok=True),
        )


def words_of(transcription: Transcription) -> dict:
    """The fields the transcription ends with: ready with its text, or failed with the status
    the API answers."""
    try:
        samples, seconds = decode(transcription)
        last = 0.0

        def report(done: float) -> None:
            nonlocal last
            if time.monotonic() - last >= 1:
                last = time.monotonic()
                Transcription.objects.beat(transcription.pk, progress=round(100 * done))

        text = transcribe_samples(samples, report)
    except TranscriptionError as error:
        failed = Transcription.Status.FAILED
        return {"status": failed, "error": str(error), "error_status": error.status}
    finally:
        transcription.path.unlink(missing_ok=True)
    ready = Transcription.Status.READY
    return {"status": ready, "text": text, "seconds": seconds, "progress": 100}


def decode(transcription: Transcription) -> tuple[np.ndarray, float]:
    """The recording as 16 kHz float samples, decoded in the reading sandbox."""
    limit = settings.CHAT_MAX_AUDIO_SECONDS
    try:
        result = readers.run_isolated(
            transcription.path,
            "audio",
            timeout=READ_TIMEOUT,
            memory_mb=READ_MEMORY_MB,
            options={"max_seconds": limit},
        )
    except readers.ExtractionError as error:
        raise TranscriptionError(str(error)) from error
    if result["seconds"] > limit:
        raise TranscriptionError(f"Recordings are limited to {limit} seconds.", 413)
    samples = np.frombuffer(base64.b64decode(result["samples"]), dtype=np.int16)
    return samples.astype(np.float32) / 32768.0, result["seconds"]


def transcribe_samples(samples: np.ndarray, report) -> str:
    try:
        return gateway.transcribe(samples, report)
    except gateway.ModelUnavailable as error:
        raise TranscriptionError(str(error), 503) from error
    except gateway.ModelError as error:
        raise TranscriptionError(str(error)) from error


async def wait(transcription_id: int, seconds: float) -> Transcription:
    """The transcription once it ended, or as it is after `seconds`. A caller waiting holds no
    thread, and no database connection between its looks (a pool of 20 would run dry)."""
    deadline = time.monotonic() + seconds
    look = database_sync_to_async(Transcription.objects.get)
    while True:
        transcription = await look(pk=transcription_id)
        ended = transcription.status != Transcription.Status.TRANSCRIBING
        if ended or time.monotonic() >= deadline:
            return transcription
        await asyncio.sleep(min(POLL_SECONDS, max(0.0, deadline - time.monotonic())))
