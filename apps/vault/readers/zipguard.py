"""The guard before any Office parser, in the sandbox child: refuse zip bombs (an index alone
can list millions of entries), zips that are not the document they claim, and XML with a DTD."""

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


def check_office_zip(path: Path, fmt: str) -> None:
    """Refuse zip bombs and XML with a DTD before python-docx/pptx or openpyxl parse it."""
    from defusedxml import DTDForbidden, EntitiesForbidden
    from defusedxml.ElementTree import iterparse

    name = fmt.upper()
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError) as error:
        raise ExtractionError(f"This is not a valid {name} file (broken zip).") from error
    with archive:
        entries = archive.infolist()
        if len(entries) > MAX_ZIP_ENTRIES:
            raise ExtractionError(f"The {name} file has too many parts ({len(entries)}).")
        if sum(entry.file_size for entry in entries) > MAX_UNZIPPED_BYTES:
            raise ExtractionError(f"The {name} file unpacks to more than 1 GB: refused.")
        for entry in entries:
            if (
                entry.file_size > RATIO_CHECK_FROM_BYTES
                and entry.file_size > MAX_COMPRESSION_RATIO * max(entry.compress_size, 1)
            ):
                raise ExtractionError(
                    f"The {name} file is compressed suspiciously well (a zip bomb?): refused."
                )
        if OFFICE_PARTS[fmt] not in archive.namelist():
            raise ExtractionError(f"This zip file is not a {name} document.")
        for entry in entries:
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
