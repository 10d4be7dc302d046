"""What every reader shares: the error whose text the uploader sees, and the progress callback.
No Django in this package: the sandbox child starts fast and the readers are easy to test."""

from collections.abc import Callable

Progress = Callable[[dict], None]


class ExtractionError(Exception):
    """A file that cannot be read; the message is shown to the person who uploaded it."""


def noop(_: dict) -> None:
    pass


def short(error: BaseException) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return text[:200]
