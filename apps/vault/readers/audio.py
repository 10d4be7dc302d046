"""A recording for speech-to-text: decoded by FFmpeg (PyAV) to what Whisper takes, 16 kHz mono
16-bit samples, never more than `max_seconds` of it (an 8 MB FLAC can hold twelve hours of
silence, gigabytes once decoded). A length the container states beyond the limit is believed
without decoding; any other is counted while decoding, since a header can lie short, and
decoding stops once past the limit. The caller decides what a length over the limit means."""

import base64
from pathlib import Path

from apps.vault.readers.common import ExtractionError, Progress

RATE = 16_000
NOT_AUDIO = "That file is not audio we can read."


def read_audio(path: Path, progress: Progress, max_seconds: float) -> dict:
    """{"seconds": the length, "samples": base64 of the 16-bit samples, or "" when the recording
    is longer than `max_seconds`}. Raises ExtractionError for anything that is not audio."""
    import av  # PyAV, bundled with faster-whisper

    resampler = av.AudioResampler(format="s16", layout="mono", rate=RATE)
    samples, seconds = bytearray(), 0.0
    try:
        with av.open(str(path), mode="r", metadata_errors="ignore") as container:
            if not container.streams.audio:
                raise ExtractionError(NOT_AUDIO)
            stated = container.duration / av.time_base if container.duration else 0.0
            if stated > max_seconds:
                return too_long(stated)
            for frame in container.decode(audio=0):
                seconds += frame.samples / (frame.sample_rate or 1)
                if seconds > max_seconds:
                    return too_long(seconds)
                for piece in resampler.resample(frame):
                    samples += piece.to_ndarray().tobytes()
                progress({"seconds": round(seconds, 1)})
            for piece in resampler.resample(None):
                samples += piece.to_ndarray().tobytes()
    except (av.FFmpegError, UnicodeDecodeError, ValueError) as error:
        raise ExtractionError(NOT_AUDIO) from error
    if not samples:
        raise ExtractionError(NOT_AUDIO)
    encoded = base64.b64encode(samples).decode()
    return {"units": [], "pages": None, "seconds": seconds, "samples": encoded}


def too_long(seconds: float) -> dict:
    return {"units": [], "pages": None, "seconds": seconds, "samples": ""}
