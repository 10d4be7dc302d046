"""A question bank file someone sends, read in the reading sandbox's child process
(`run_isolated(path, "apps.study.quizzes.bank_files:read_bank")`): its format is told by its
content, not its name (a zip is a QTI package, XML is Moodle XML, other text is GIFT)."""

from pathlib import Path

from apps.study.quizzes import gift, moodle_xml, qti
from apps.study.untrusted_files import MAX_XML_BYTES, UnreadableFile

FORMATS = {"qti": "a QTI 2.1 package", "moodle_xml": "Moodle XML", "gift": "GIFT"}


def format_of(head: bytes) -> str:
    if head.startswith(b"PK\x03\x04"):
        return "qti"
    if head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        return "moodle_xml"
    return "gift"


def read_bank(path: Path, progress=None, **options) -> dict:
    """{"format": ..., "bank": Bank.as_dict(), "units": []} (the sandbox wants its units)."""
    with Path(path).open("rb") as file:
        head = file.read(MAX_XML_BYTES + 1)
    fmt = format_of(head)
    if fmt == "qti":
        bank = qti.read(path)
    elif len(head) > MAX_XML_BYTES:
        raise UnreadableFile(
            f"The {FORMATS[fmt]} file is larger than {MAX_XML_BYTES // 2**20} MB: refused."
        )
    elif fmt == "moodle_xml":
        bank = moodle_xml.read(head)
    else:
        bank = gift.read(head)
    return {"units": [], "format": fmt, "bank": bank.as_dict()}
