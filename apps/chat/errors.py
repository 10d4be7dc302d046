"""What the chat refuses, with the HTTP status the API answers it with; the message is shown to
the person as it is (under the composer, beside an attachment, or as `{"detail": ...}`)."""


class ChatError(Exception):
    status = 400


class AskError(ChatError):
    """A question that cannot be asked: empty, too long, a bad scope, a missing attachment."""


class ScopeNotFound(AskError):
    """A question whose scope names a category or document the asker has none of."""

    status = 404


class ThreadBusy(AskError):
    """A question to a thread whose last answer is still being written: it waits for that one."""

    status = 409


class AttachmentError(ChatError):
    """An attachment that is refused or cannot be read."""


class TranscriptionError(ChatError):
    """A recording that is refused or cannot be transcribed; `status` is what the API answers
    (413 too long, 503 no speech model, 400 anything else)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status
