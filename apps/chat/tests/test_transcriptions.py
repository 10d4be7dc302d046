"""Voice input: POST /api/v1/chat/transcribe stores a recording, the jobs worker decodes it in
the reading sandbox and transcribes it (`transcriptions.transcribe`, the body of
tasks.transcribe_recording), and the API waits for the text or answers 202; the chat page shows
the progress. Each student has one recording at a time and RATE_LIMIT_TRANSCRIPTIONS."""

from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from apps.chat import transcriptions
from apps.chat.models import Transcription, TranscriptionQuerySet
from apps.chat.tests.helpers import silent_flac
from tests.helpers.isolation import assert_only_owner_can_reach

# The API closes its database connection while it waits: a transaction per test would go too.
pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def send(client, audio: bytes, wait: int | None = None):
    url = "/api/v1/chat/transcribe" + ("" if wait is None else f"?wait={wait}")
    return client.post(url, {"file": SimpleUploadedFile("question.flac", audio)})


def test_the_text_comes_back_when_the_worker_finishes_within_the_wait(
    alice_client, transcription_worker, fake_whisper
):
    response = send(alice_client, silent_flac(3))

    assert response.status_code == 200
    body = response.json()
    assert body["text"] == "3.0 seconds of speech" and body["status"] == "ready"
    assert body["progress"] == 100 and body["seconds"] == pytest.approx(3, abs=0.1)
    assert fake_whisper == [48000]  # 16 kHz samples, decoded in the sandbox
    assert not Transcription.objects.get().path.exists()  # the recording is not kept


def test_the_web_process_stores_a_recording_and_never_decodes_it(
    alice_client, fake_whisper, monkeypatch
):
    def decode_here(*args, **kwargs):
        raise AssertionError("the web process read a recording")

    monkeypatch.setattr("apps.vault.readers.run_isolated", decode_here)
    monkeypatch.setattr("apps.chat.tasks.enqueue_transcription", lambda pk: None)
    response = send(alice_client, silent_flac(3), wait=0)

    assert response.status_code == 202
    transcription = Transcription.objects.get()
    assert response.json() == {
        "id": transcription.pk,
        "status": "transcribing",
        "text": "",
        "progress": 0,
        "seconds": None,
        "error": "",
    }
    assert transcription.path.read_bytes() == silent_flac(3)


def test_a_transcription_not_finished_in_the_wait_is_asked_for_by_its_id(
    alice_client, bob_client, fake_whisper, monkeypatch
):
    monkeypatch.setattr("apps.chat.tasks.enqueue_transcription", lambda pk: None)
    started = send(alice_client, silent_flac(2), wait=0).json()
    url = f"/api/v1/chat/transcriptions/{started['id']}"
    assert alice_client.get(url).json()["status"] == "transcribing"

    transcriptions.transcribe(started["id"], worker="jobs@test")

    done = alice_client.get(url).json()
    assert done["status"] == "ready" and done["text"] == "2.0 seconds of speech"
    assert_only_owner_can_reach(url, bob_client, ["get"])


def test_a_file_that_is_not_audio_gets_a_400_and_is_deleted(
    alice_client, transcription_worker, fake_whisper
):
    response = send(alice_client, b"not audio at all")

    assert response.status_code == 400
    assert response.json()["detail"] == "That file is not audio we can read."
    assert not Transcription.objects.get().path.exists()
    assert fake_whisper == []


def test_a_recording_over_the_size_limit_is_refused_before_it_is_stored(
    settings, alice_client, fake_whisper
):
    settings.CHAT_MAX_AUDIO_MB = 1
    response = send(alice_client, b"\x00" * (1024 * 1024 + 1))

    assert response.status_code == 413
    assert response.json()["detail"] == "Audio is limited to 1 MB."
    assert not Transcription.objects.exists()


def test_without_a_speech_model_the_answer_is_503(alice_client, monkeypatch):
    monkeypatch.setattr("apps.llm.gateway.speech_available", lambda: False)
    response = send(alice_client, silent_flac(1))

    assert response.status_code == 503
    assert not Transcription.objects.exists()


def test_one_recording_at_a_time_per_student(alice_client, bob_client, fake_whisper, monkeypatch):
    monkeypatch.setattr("apps.chat.tasks.enqueue_transcription", lambda pk: None)
    assert send(alice_client, silent_flac(1), wait=0).status_code == 202

    refused = send(alice_client, silent_flac(1), wait=0)

    assert refused.status_code == 429 and refused["Retry-After"] == "5"
    assert "1 recording being transcribed" in refused.json()["detail"]
    assert Transcription.objects.count() == 1  # nothing stored for the refused one
    assert send(bob_client, silent_flac(1), wait=0).status_code == 202


@pytest.mark.parametrize(
    ("query", "files", "field"),
    [
        ("", {}, ["file", "file"]),
        ("?wait=abc", {"file": "question.flac"}, ["query", "wait"]),
        ("?wait=-1", {"file": "question.flac"}, ["query", "wait"]),
    ],
)
def test_a_request_that_cannot_be_read_is_a_422_even_while_a_recording_is_transcribed(
    alice, alice_client, fake_whisper, query, files, field
):
    """What was sent is checked before the person's share: the 422 says what to fix."""
    Transcription.objects.create(owner=alice, stored_name="a.audio", size_bytes=1)
    body = {name: SimpleUploadedFile(label, silent_flac(1)) for name, label in files.items()}

    response = alice_client.post(f"/api/v1/chat/transcribe{query}", body)

    assert response.status_code == 422
    assert [error["loc"] for error in response.json()["detail"]] == [field]
    assert Transcription.objects.count() == 1


def test_recordings_past_the_rate_limit_are_refused(
    settings, alice_client, fake_whisper, monkeypatch, midday
):
    settings.RATE_LIMIT_TRANSCRIPTIONS = "2/m"
    monkeypatch.setattr(
        "apps.chat.tasks.enqueue_transcription",
        lambda pk: transcriptions.transcribe(pk, worker="jobs@test"),
    )
    for _ in range(2):  # each transcribed before the answer: ready at once
        assert send(alice_client, silent_flac(1), wait=0).status_code == 200

    refused = send(alice_client, silent_flac(1), wait=0)

    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert refused.json()["detail"].startswith("Too many recordings: at most 2 per minute.")


def chip(client, transcription: Transcription) -> str:
    return client.get(f"/chat/transcriptions/{transcription.pk}/").text


def test_the_chat_page_shows_the_progress_then_the_text_for_the_question_box(
    alice, alice_client, bob_client
):
    transcription = Transcription.objects.create(owner=alice, stored_name="a.audio", size_bytes=1)
    assert "Waiting for a worker" in chip(alice_client, transcription)

    rows = Transcription.objects.filter(pk=transcription.pk)
    rows.update(worker="jobs@test", heartbeat_at=timezone.now(), progress=40)
    shown = chip(alice_client, transcription)
    assert "Transcribing… 40 %" in shown
    assert f'hx-get="/chat/transcriptions/{transcription.pk}/"' in shown  # it asks again

    rows.update(status="ready", text="What is osmosis?", progress=100)
    shown = chip(alice_client, transcription)
    assert 'data-transcript="What is osmosis?"' in shown and "hx-get" not in shown
    assert_only_owner_can_reach(f"/chat/transcriptions/{transcription.pk}/", bob_client, ["get"])


def test_a_transcription_whose_worker_died_says_so(settings, alice, alice_client):
    long_ago = timezone.now() - timedelta(seconds=settings.INGEST_STALE_SECONDS + 1)
    transcription = Transcription.objects.create(
        owner=alice, stored_name="b.audio", size_bytes=1, worker="jobs@gone", heartbeat_at=long_ago
    )

    shown = chip(alice_client, transcription)

    assert 'role="alert"' in shown and "record it again" in shown
    api = alice_client.get(f"/api/v1/chat/transcriptions/{transcription.pk}").json()
    assert api["status"] == "failed" and api["error"] == TranscriptionQuerySet.INTERRUPTED


def test_a_client_that_did_not_ask_to_wait_less_gets_the_text_or_an_error_never_a_202(
    alice_client, fake_whisper, settings, monkeypatch
):
    settings.CHAT_TRANSCRIBE_WAIT_SECONDS = 0
    monkeypatch.setattr("apps.chat.tasks.enqueue_transcription", lambda pk: None)

    response = send(alice_client, silent_flac(2))

    assert response.status_code == 503
    transcription = Transcription.objects.get()
    assert f"/api/v1/chat/transcriptions/{transcription.pk}" in response.json()["detail"]
    transcriptions.transcribe(transcription.pk, worker="jobs@late")
    url = f"/api/v1/chat/transcriptions/{transcription.pk}"
    assert alice_client.get(url).json()["text"] == "2.0 seconds of speech"
