"""Audio bombs on POST /api/v1/chat/transcribe: a small file that decodes to hours of audio is
refused from its header, or after decoding no more than the allowed length, with the web
process's memory watched."""

import io
import threading

import av
import numpy as np
import psutil
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.llm.gateway import audio_seconds

pytestmark = pytest.mark.django_db
RATE = 8000
HOUR = 3600


def silent_flac(seconds: int) -> bytes:
    """`seconds` of silence as FLAC: twelve hours are under 8 MB."""
    out = io.BytesIO()
    with av.open(out, "w", format="flac") as container:
        stream = container.add_stream("flac", rate=RATE, layout="mono")
        total, size = seconds * RATE, 32768
        for start in range(0, total, size):
            block = np.zeros((1, min(size, total - start)), dtype=np.int16)
            frame = av.AudioFrame.from_ndarray(block, format="s16", layout="mono")
            frame.sample_rate, frame.pts = RATE, start
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    return out.getvalue()


def claiming(flac: bytes, seconds: int) -> bytes:
    """The same FLAC with a STREAMINFO header that lies: it claims `seconds` in all."""
    fields = int.from_bytes(flac[18:26], "big")  # rate, channels, bits, then 36 bits of samples
    fields = (fields & ~((1 << 36) - 1)) | (seconds * RATE)
    return flac[:18] + fields.to_bytes(8, "big") + flac[26:]


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
def _speech_on(settings, monkeypatch):
    settings.CHAT_MAX_AUDIO_MB = 10
    settings.CHAT_MAX_AUDIO_SECONDS = 120
    # The refusal comes before any model is needed; a server without Whisper would say 503.
    monkeypatch.setattr("apps.llm.gateway.speech_available", lambda: True)


def transcribe(client, audio: bytes):
    return client.post("/api/v1/chat/transcribe", {"file": SimpleUploadedFile("q.flac", audio)})


@pytest.fixture
def alice_client(alice_client):
    """alice's browser after one request to the route, as on a server that has been up a while:
    what is measured is the bomb, not the first import of the API and of PyAV."""
    assert transcribe(alice_client, silent_flac(121)).status_code == 413
    return alice_client


def test_twelve_hours_of_silence_in_8_mb_are_refused_without_decoding_them(
    alice_client, twelve_hours
):
    assert len(twelve_hours) < 8 * 2**20

    with PeakMemory() as memory:
        response = transcribe(alice_client, twelve_hours)

    assert response.status_code == 413
    assert response.json()["detail"] == "Recordings are limited to 120 seconds."
    assert memory.growth_mb < 50


def test_a_header_that_lies_short_does_not_get_the_rest_decoded(alice_client, twelve_hours):
    liar = claiming(twelve_hours, 10)

    with PeakMemory() as memory:
        response = transcribe(alice_client, liar)

    assert response.status_code == 413
    assert memory.growth_mb < 50


def test_the_length_is_measured_only_up_to_the_limit(twelve_hours):
    assert audio_seconds(twelve_hours, limit=120) == pytest.approx(12 * HOUR, rel=0.01)
    # Without a truthful header, decoding stops just past the limit, never at twelve hours.
    measured = audio_seconds(claiming(twelve_hours, 10), limit=120)
    assert 120 < measured < 130


def test_a_short_recording_is_measured_whole():
    assert audio_seconds(silent_flac(3), limit=120) == pytest.approx(3, abs=0.1)
    assert audio_seconds(claiming(silent_flac(3), 1), limit=120) == pytest.approx(3, abs=0.1)


@pytest.mark.parametrize("audio", [b"", b"not audio at all", b"fLaC" + b"\x00" * 100])
def test_something_that_is_not_audio_has_no_length(audio):
    assert audio_seconds(audio, limit=120) is None
