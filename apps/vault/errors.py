"""What the vault refuses, each with the HTTP status the API answers it with. The message is
for the person: pages show it as it is, the API as `{"detail": ...}` (cognivault_site/api.py
maps every VaultError once)."""


class VaultError(Exception):
    status = 400


class ScopeError(VaultError, LookupError):
    """A category or document in a scope does not exist for the asker (another person's
    personal document is told apart from none at all by nothing)."""

    status = 404


class CategoryRefused(VaultError):
    """A new category without a name."""

    status = 422


class CategoryTaken(CategoryRefused):
    """A new category with the name of one that exists."""

    status = 409


class NotEditable(VaultError):
    """A document the asker sees but may not change: a class document, for a student."""

    status = 403


class UploadRefused(VaultError):
    """A file that is not stored: its type, size, content or scope; the message says which."""

    status = 422


class ClassDocumentRefused(VaultError):
    """A class document added by someone who is not a teacher: the class's documents are the
    teacher's (docs/api.md, who sees what)."""

    status = 403


class OverQuota(UploadRefused):
    """A student's storage quota (User.room_bytes) is used up."""

    status = 413


class FetchError(VaultError):
    """A URL that was refused or could not be fetched."""

    status = 422
