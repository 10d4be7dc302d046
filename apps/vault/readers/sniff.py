"""What the web process may know of an upload: its format from the name, and whether its first
bytes match it (magic numbers). It never opens the file; the sandbox reads the rest."""

import codecs

from apps.vault.readers.zipguard import OFFICE_PARTS

# Extension (lower case, no dot) -> format name. The format is what the pipeline dispatches on.
EXTENSIONS = {
    "pdf": "pdf",
    "docx": "docx",
    "pptx": "pptx",
    "xlsx": "xlsx",
    "csv": "csv",
    "md": "md",
    "markdown": "md",
    "txt": "txt",
    "html": "html",
    "htm": "html",
}


def format_for(filename: str) -> str | None:
    extension = filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
    return EXTENSIONS.get(extension)


def looks_like(fmt: str, head: bytes) -> bool:
    """Magic bytes: the content must match the extension before anything is stored. An Office
    file only has to start as a zip here; the zip guard checks the rest when it is read."""
    if fmt == "pdf":
        return b"%PDF-" in head[:1024]
    if fmt in OFFICE_PARTS:
        return head.startswith(b"PK\x03\x04")
    # Text formats: no NUL bytes unless the text announces UTF-16 with a byte-order mark.
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return True
    if b"\x00" in head:
        return False
    if fmt == "html":
        return b"<" in head
    return True


# An OLE compound file: Office 97-2003, and what Office makes of a .docx/.xlsx/.pptx it
# encrypts with a password.
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def mismatch(fmt: str, head: bytes) -> str:
    """Why content that `looks_like` refused is not a .fmt file, for the person uploading it."""
    if fmt in OFFICE_PARTS and head.startswith(OLE_MAGIC):
        return (
            f"the file is password-protected, or in the old Office 97-2003 format: save it as "
            f".{fmt} without a password."
        )
    return f"the content is not a .{fmt} file."
