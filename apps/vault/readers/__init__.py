"""Text out of every format the vault takes, with its page, slide, sheet or section kept: one
module per family of formats, the zip guard, and the sandbox that runs them in a child process."""

from apps.vault.readers.common import ExtractionError
from apps.vault.readers.formats import extract
from apps.vault.readers.sandbox import run_isolated
from apps.vault.readers.sniff import EXTENSIONS, format_for, looks_like, mismatch
from apps.vault.readers.text import decode_declared

__all__ = [
    "EXTENSIONS",
    "ExtractionError",
    "decode_declared",
    "extract",
    "format_for",
    "looks_like",
    "mismatch",
    "run_isolated",
]
