"""What the chat refuses, with the HTTP status the API answers it with; the message is shown to
the person as it is (under the composer, beside an attachment, or as `{"detail": ...}`)."""


class ChatError(Exception):
    status = 400


class AskError(ChatError):
    """A question that cannot be asked: empty, too long, a bad scope, a missing attachment."""


class AttachmentError(ChatError):
    """An attachment that is refused or cannot be read."""
