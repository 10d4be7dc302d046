"""Audio bombs on POST /api/v1/chat/transcribe: a small file that decodes to hours of audio is
refused from its header, or after decoding no more than the allowed length. Neither the web
process nor the worker decodes it (both are this process here, its memory watched): the
reading sandbox's child does, under its own memory limit."""

import threading
from pathlib import Path

import psutil
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.chat.tests.helpers import claiming, silent_flac
from apps.vault.readers import ExtractionError, extract

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)
HOUR = 3600


class PeakMemory:
    """The highest resident memory of this process while the block runs, sampled every 5 ms."""

    def __enter__(self):
        self.process = psutil.Process()
        self.start = self.peak = self.process.memory_info().rss
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()
        return self

    def _watch(self) -> None:
        while not self.done.wait(0.005):
            self.peak = max(self.peak, self.process.memory_info().rss)

    def __exit__(self, *exc) -> None:
        self.done.set()
        self.thread.join()
        self.peak = max(self.peak, self.process.memory_info().rss)

    @property
    def growth_mb(self) -> float:
        return (self.peak - self.start) / 2**20


@pytest.fixture(scope="module")
def twelve_hours() -> bytes:
    return silent_flac(12 * HOUR)


@pytest.fixture(autouse=True)
def _limits(settings):
    settings.CHAT_MAX_AUDIO_MB = 10
    settings.CHAT_MAX_AUDIO_SECONDS = 120


def transcribe(client, audio: bytes):
    return client.post("/api/v1/chat/transcribe", {"file": SimpleUploadedFile("q.flac", audio)})


@pytest.fixture
def alice_client(alice_client, transcription_worker, fake_whisper):
    """alice's browser after one recording, as on a server that has been up a while: what is
    measured is the bomb, not the first import of the API."""
    assert transcribe(alice_client, silent_flac(121)).status_code == 413
    return alice_client


def test_twelve_hours_of_silence_in_8_mb_are_refused_without_decoding_them(
    alice_client, twelve_hours, fake_whisper
):
    assert len(twelve_hours) < 8 * 2**20

    with PeakMemory() as memory:
        response = transcribe(alice_client, twelve_hours)

    assert response.status_code == 413
    assert response.json()["detail"] == "Recordings are limited to 120 seconds."
    assert memory.growth_mb < 50
    assert fake_whisper == []  # the model never got any of it


def test_a_header_that_lies_short_does_not_get_the_rest_decoded(alice_client, twelve_hours):
    liar = claiming(twelve_hours, 10)

    with PeakMemory() as memory:
        response = transcribe(alice_client, liar)

    assert response.status_code == 413
    assert memory.growth_mb < 50


def read(tmp_path: Path, audio: bytes, limit: float = 120) -> dict:
    path = tmp_path / "recording.audio"
    path.write_bytes(audio)
    return extract(path, "audio", max_seconds=limit)


def test_the_length_is_measured_only_up_to_the_limit(twelve_hours, tmp_path):
    stated = read(tmp_path, twelve_hours)
    assert stated["seconds"] == pytest.approx(12 * HOUR, rel=0.01) and stated["samples"] == ""
    # Without a truthful header, decoding stops just past the limit, never at twelve hours.
    measured = read(tmp_path, claiming(twelve_hours, 10))
    assert 120 < measured["seconds"] < 130 and measured["samples"] == ""


def test_a_short_recording_is_measured_whole_and_decoded_for_whisper(tmp_path):
    for audio in (silent_flac(3), claiming(silent_flac(3), 1)):
        result = read(tmp_path, audio)
        assert result["seconds"] == pytest.approx(3, abs=0.1)
        assert len(result["samples"]) == pytest.approx(4 * 3 * 16000 * 2 / 3, rel=0.01)  # base64


@pytest.mark.parametrize("audio", [b"", b"not audio at all", b"fLaC" + b"\x00" * 100])
def test_something_that_is_not_audio_is_refused(audio, tmp_path):
    with pytest.raises(ExtractionError, match="not audio we can read"):
        read(tmp_path, audio)
