"""The guards on zips from outside, in the sandbox child: `open_zip` refuses zip bombs (an index
alone can list millions of entries) for Office files and the files of other tools alike, each
with its limits; `check_office_zip`, before any Office parser, also zips that are not the
document they claim, and XML with a DTD."""

import zipfile
from pathlib import Path
from xml.etree.ElementTree import ParseError

from apps.vault.readers.common import ExtractionError

OFFICE_PARTS = {
    "docx": "word/document.xml",
    "pptx": "ppt/presentation.xml",
    "xlsx": "xl/workbook.xml",
}

# Office files are zips: a file beyond these limits is refused before any parser sees it.
MAX_ZIP_ENTRIES = 10_000
MAX_UNZIPPED_BYTES = 1024 * 1024 * 1024
MAX_COMPRESSION_RATIO = 200  # XML compresses 10-30x; zip bombs reach thousands
RATIO_CHECK_FROM_BYTES = 1024 * 1024


def open_zip(
    path: Path,
    what: str,
    *,
    max_entries: int = MAX_ZIP_ENTRIES,
    max_unzipped_bytes: int = MAX_UNZIPPED_BYTES,
) -> zipfile.ZipFile:
    """A zip whose index and sizes are within the limits: a zip bomb is refused before any part
    is unpacked. `what` names the file in the messages ("DOCX file", "QTI package")."""
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError):
        raise ExtractionError(f"The {what} is not a valid zip file.") from None
    entries = archive.infolist()
    refusal = None
    if len(entries) > max_entries:
        refusal = f"The {what} holds too many files ({len(entries)}): refused."
    elif sum(entry.file_size for entry in entries) > max_unzipped_bytes:
        refusal = f"The {what} unpacks to more than {max_unzipped_bytes // 2**20} MB: refused."
    elif any(
        entry.file_size > RATIO_CHECK_FROM_BYTES
        and entry.file_size > MAX_COMPRESSION_RATIO * max(entry.compress_size, 1)
        for entry in entries
    ):
        refusal = f"The {what} is compressed suspiciously well (a zip bomb?): refused."
    if refusal:
        archive.close()
        raise ExtractionError(refusal)
    return archive


def check_office_zip(path: Path, fmt: str) -> None:
    """Refuse zip bombs and XML with a DTD before python-docx/pptx or openpyxl parse it."""
    from defusedxml import DTDForbidden, EntitiesForbidden
    from defusedxml.ElementTree import iterparse

    name = fmt.upper()
    with open_zip(path, f"{name} file") as archive:
        if OFFICE_PARTS[fmt] not in archive.namelist():
            raise ExtractionError(f"This zip file is not a {name} document.")
        for entry in archive.infolist():
            if not entry.filename.endswith((".xml", ".rels")):
                continue
            try:
                with archive.open(entry) as stream:
                    # The DTD comes before the root element: reading up to it is enough.
                    for _ in iterparse(stream, events=("start",), forbid_dtd=True):
                        break
            except (DTDForbidden, EntitiesForbidden) as error:
                raise ExtractionError(
                    f"The {name} file contains an XML DTD ({entry.filename}): refused."
                ) from error
            except (ParseError, zipfile.BadZipFile, OSError, ValueError) as error:
                raise ExtractionError(
                    f"The {name} file has a damaged part ({entry.filename})."
                ) from error
