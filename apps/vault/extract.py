"""Text out of every format the vault takes, with its page, slide, sheet or section kept.

Uploaded files are untrusted, so they are parsed in a child process (`run_isolated`, which runs
`python -m apps.vault.extract FORMAT PATH`) under a time and a memory limit: no file can hang or
exhaust a worker. The child prints JSON lines: progress events, then one result or one error.
No Django here: the child starts fast and the module is easy to test on its own.
"""

import codecs
import contextlib
import csv
import ctypes
import ctypes.util
import datetime
import io
import json
import os
import re
import resource
import signal
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from xml.etree.ElementTree import ParseError

from apps.vault.chunking import MIN_CHARS_STRUCTURED, Unit, row_batches

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
OFFICE_PARTS = {
    "docx": "word/document.xml",
    "pptx": "ppt/presentation.xml",
    "xlsx": "xl/workbook.xml",
}

OCR_MIN_CHARS = 50  # a page with less text than this is taken for a scan
OCR_DPI = 144
OCR_LANGUAGES = "deu+eng"

# Office files are zips: a file beyond these limits is refused before any parser sees it.
MAX_ZIP_ENTRIES = 10_000
MAX_UNZIPPED_BYTES = 1024 * 1024 * 1024
MAX_COMPRESSION_RATIO = 200  # XML compresses 10-30x; zip bombs reach thousands
RATIO_CHECK_FROM_BYTES = 1024 * 1024

Progress = Callable[[dict], None]


class ExtractionError(Exception):
    """A file that cannot be read; the message is shown to the person who uploaded it."""


def noop(_: dict) -> None:
    pass


def format_for(filename: str) -> str | None:
    extension = filename.rsplit(".", 1)[-1].lower() if "." in filename else ""
    return EXTENSIONS.get(extension)


def looks_like(fmt: str, head: bytes, path: Path | None = None) -> bool:
    """Magic bytes: the content must match the extension before anything is stored."""
    if fmt == "pdf":
        return b"%PDF-" in head[:1024]
    if fmt in OFFICE_PARTS:
        if not head.startswith(b"PK\x03\x04") or path is None:
            return False
        try:
            with zipfile.ZipFile(path) as archive:
                return OFFICE_PARTS[fmt] in archive.namelist()
        except (zipfile.BadZipFile, OSError, ValueError):
            return False
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


def decode_text(data: bytes) -> str:
    """The text with its line ends as "\n", whatever wrote it (Notepad's CRLF, an old Mac's CR):
    the splitter cuts at "\n\n", which "\r\n\r\n" does not hold."""
    return _decode(data).replace("\r\n", "\n").replace("\r", "\n")


def _decode(data: bytes) -> str:
    """UTF-8 (with or without BOM), UTF-16 with a BOM, else Windows-1252 with replacements.
    UTF-8 with a few bad bytes (a line pasted from an old file) stays UTF-8: read as
    Windows-1252, every ü of the rest would become Ã¼."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace")
    if b"\x00" in data[:65536]:
        raise ExtractionError("This looks like a binary file, not text.")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    text = data.decode("utf-8-sig", errors="replace")
    bad = text.count("\ufffd")
    # Windows-1252 text almost never holds a valid multi-byte UTF-8 sequence by chance.
    if sum(not character.isascii() for character in text) - bad > bad:
        return data.decode("utf-8-sig", errors="cp1252-bytes")
    return data.decode("cp1252", errors="replace")


def _bytes_as_cp1252(error: UnicodeDecodeError) -> tuple[str, int]:
    """The bytes UTF-8 cannot read, read as Windows-1252 (the "ü" of the pasted line)."""
    return error.object[error.start : error.end].decode("cp1252", errors="replace"), error.end


codecs.register_error("cp1252-bytes", _bytes_as_cp1252)


def short(error: BaseException) -> str:
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return text[:200]


# --- PDF ---------------------------------------------------------------------------------------


def extract_pdf(path: Path, progress: Progress) -> dict:
    import pymupdf

    try:
        document = pymupdf.open(path, filetype="pdf")
    except Exception as error:  # pymupdf rejects it: pypdf sometimes still reads it
        return extract_pdf_with_pypdf(path, progress, error)
    with document:
        if document.needs_pass:
            raise ExtractionError("The PDF is password-protected; upload an unlocked copy.")
        total = document.page_count
        if total == 0:
            raise ExtractionError("The PDF has no pages.")
        units, ocr_pages, ocr_seconds = [], 0, 0.0
        for index in range(total):
            try:
                page = document.load_page(index)
                text = page.get_text("text")
            except Exception as error:
                return extract_pdf_with_pypdf(path, progress, error)
            if len(text.strip()) < OCR_MIN_CHARS:
                started = time.monotonic()
                text = ocr_page(page, index + 1)
                ocr_pages += 1
                ocr_seconds += time.monotonic() - started
            units.append(Unit(text, page=index + 1))
            progress(
                {
                    "page": index + 1,
                    "pages": total,
                    "ocr_pages": ocr_pages,
                    "ocr_seconds": round(ocr_seconds, 1),
                }
            )
    return {"units": units, "pages": total, "ocr_pages": ocr_pages, "ocr_seconds": ocr_seconds}


def extract_pdf_with_pypdf(path: Path, progress: Progress, cause: BaseException) -> dict:
    from pypdf import PdfReader

    try:
        reader = PdfReader(path, strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise ExtractionError("The PDF is password-protected; upload an unlocked copy.")
        total = len(reader.pages)
        if total == 0:
            raise ExtractionError("The PDF has no pages.")
        units = []
        for index, page in enumerate(reader.pages):
            units.append(Unit(page.extract_text() or "", page=index + 1))
            progress({"page": index + 1, "pages": total, "ocr_pages": 0, "ocr_seconds": 0})
    except ExtractionError:
        raise
    except Exception as error:
        raise ExtractionError(
            f"The PDF is damaged and could not be read ({short(cause)}; {short(error)})."
        ) from error
    return {"units": units, "pages": total, "ocr_pages": 0, "ocr_seconds": 0.0}


def ocr_page(page, number: int) -> str:
    """Render the page at ~144 dpi in grey and read it with Tesseract (German and English)."""
    import pymupdf
    import pytesseract
    from PIL import Image

    zoom = OCR_DPI / 72
    pixels = page.rect.width * zoom * page.rect.height * zoom
    if pixels > Image.MAX_IMAGE_PIXELS:
        raise ExtractionError(
            f"Page {number} is too large to render for OCR ({pixels / 1e6:.0f} megapixels)."
        )
    pixmap = page.get_pixmap(dpi=OCR_DPI, colorspace=pymupdf.csGRAY, alpha=False)
    image = Image.frombytes("L", (pixmap.width, pixmap.height), pixmap.samples)
    try:
        return pytesseract.image_to_string(image, lang=OCR_LANGUAGES)
    except pytesseract.TesseractNotFoundError as error:
        raise ExtractionError("Tesseract is not installed, so scanned pages cannot be read.") from (
            error
        )
    except pytesseract.TesseractError as error:
        raise ExtractionError(f"OCR failed on page {number} ({short(error)}).") from error


# --- Office formats ----------------------------------------------------------------------------


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


def heading_level(style_name: str) -> int:
    if style_name == "Title":
        return 1
    match = re.fullmatch(r"Heading ([1-3])", style_name)
    return int(match.group(1)) if match else 0


W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
# Text a paragraph holds that is not its own: a text box (read after it, as lines of its own),
# Word's copy of that box for old readers, and deleted or moved-away text of tracked changes.
NOT_THE_PARAGRAPHS = {
    W + "txbxContent",
    W + "del",
    W + "moveFrom",
    "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback",
}

RUN_BREAKS = {W + "tab": "\t", W + "br": "\n", W + "cr": "\n"}


def docx_blocks(container) -> Iterator:
    """The w:p and w:tbl elements of a body or cell in reading order, also those inside content
    controls (w:sdt: templates, forms, Word's table of contents), which python-docx skips."""
    for child in container.iterchildren():
        if child.tag in (W + "p", W + "tbl"):
            yield child
        elif child.tag == W + "sdt" and (content := child.find(W + "sdtContent")) is not None:
            yield from docx_blocks(content)


def _inside(node, stop, tags: set[str]) -> bool:
    for ancestor in node.iterancestors():
        if ancestor is stop:
            return False
        if ancestor.tag in tags:
            return True
    return False


def paragraph_lines(paragraph) -> list[str]:
    """A w:p's text, then each paragraph of its text boxes. python-docx's `text` reads only
    plain runs and links, not a tracked insertion, an inline content control or a field."""
    text = [
        RUN_BREAKS.get(node.tag, node.text or "")
        for node in paragraph.iter(W + "t", *RUN_BREAKS)
        if not _inside(node, paragraph, NOT_THE_PARAGRAPHS)
    ]
    lines = ["".join(text).strip()]
    for box in paragraph.iter(W + "txbxContent"):
        if not _inside(box, paragraph, NOT_THE_PARAGRAPHS):
            lines += [line for p in docx_blocks(box) for line in paragraph_lines(p)]
    return [line for line in lines if line]


def table_lines(table) -> Iterator[str]:
    """Each row of a python-docx Table as `a | b | c`; a table inside a cell (a form, a CV)
    follows its row."""
    from docx.table import Table

    for row in table.rows:
        cells: list[str] = []
        inner = []
        previous = None
        for cell in row.cells:
            if cell is previous:  # a merged cell repeats: keep it once
                continue
            previous = cell
            texts = []
            for block in docx_blocks(cell._tc):
                if block.tag == W + "tbl":
                    inner.append(Table(block, cell))
                else:
                    texts += paragraph_lines(block)
            text = "\n".join(texts)
            if text and (not cells or cells[-1] != text):
                cells.append(text)
        if cells:
            yield " | ".join(cells)
        for table_in_cell in inner:
            yield from table_lines(table_in_cell)


def extract_docx(path: Path, progress: Progress) -> dict:
    check_office_zip(path, "docx")
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        document = docx.Document(str(path))
        units: list[Unit] = []
        headings: list[str] = []
        lines: list[str] = []
        paragraphs = 0

        def flush() -> None:
            if lines:
                units.append(Unit("\n".join(lines), section=" > ".join(headings)))
                lines.clear()

        for block in docx_blocks(document.element.body):
            if block.tag == W + "tbl":
                lines.extend(table_lines(Table(block, document)))
                continue
            found = paragraph_lines(block)
            if not found:
                continue
            paragraphs += 1
            style = Paragraph(block, document).style
            level = heading_level(style.name if style is not None else "")
            if level:
                flush()
                headings[level - 1 :] = [found[0]]
            lines.extend(found)
        flush()
    except ExtractionError:
        raise
    except Exception as error:
        raise ExtractionError(f"The DOCX file could not be read ({short(error)}).") from error
    progress({"paragraphs": paragraphs})
    return {"units": units, "pages": None, "paragraphs": paragraphs}


def shape_texts(shape) -> list[str]:
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
        return [text for inner in shape.shapes for text in shape_texts(inner)]
    texts = []
    if shape.has_text_frame and shape.text_frame.text.strip():
        texts.append(shape.text_frame.text.strip())
    if getattr(shape, "has_table", False) and shape.has_table:
        for row in shape.table.rows:
            cells = [cell.text.strip() for cell in row.cells if cell.text.strip()]
            if cells:
                texts.append(" | ".join(cells))
    return texts


def extract_pptx(path: Path, progress: Progress) -> dict:
    check_office_zip(path, "pptx")
    from pptx import Presentation

    try:
        presentation = Presentation(str(path))
        units = []
        slides = list(presentation.slides)
        for number, slide in enumerate(slides, 1):
            title_shape = slide.shapes.title
            title = title_shape.text_frame.text.strip() if title_shape is not None else ""
            title_id = title_shape.shape_id if title_shape is not None else None
            body = [
                text
                for shape in slide.shapes
                if shape.shape_id != title_id
                for text in shape_texts(shape)
            ]
            # python-pptx gives a line break inside a paragraph (Shift+Enter) as "\v".
            text = "\n".join([title, *body]).strip().replace("\v", "\n")
            section = " ".join(title.split())
            units.append(
                Unit(
                    text, page=number, section=section, split=False, min_chars=MIN_CHARS_STRUCTURED
                )
            )
            progress({"page": number, "pages": len(slides)})
    except ExtractionError:
        raise
    except Exception as error:
        raise ExtractionError(f"The PPTX file could not be read ({short(error)}).") from error
    return {"units": units, "pages": len(slides)}


def cell_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    # Spreadsheets keep a date as a date and time: "2026-03-05", not "2026-03-05 00:00:00".
    if isinstance(value, datetime.datetime):
        if value.time() == datetime.time(0):
            return value.date().isoformat()
        return value.isoformat(" ", "seconds" if value.second else "minutes")
    if isinstance(value, datetime.time):
        return value.isoformat("seconds" if value.second else "minutes")
    return " ".join(str(value).split())  # a cell over several lines stays on its row's line


def row_line(values) -> str:
    cells = [cell_text(value) for value in values]
    while cells and not cells[-1]:
        cells.pop()
    return " | ".join(cells) if any(cells) else ""


def table_units(rows: list[str], *, section: str, prefix: str) -> list[Unit]:
    if not rows:
        return []
    header, body = rows[0], rows[1:]
    if not body:
        return [Unit(prefix + header, section=section, split=False, min_chars=MIN_CHARS_STRUCTURED)]
    return list(row_batches(body, header=header, prefix=prefix, section=section))


def extract_xlsx(path: Path, progress: Progress) -> dict:
    check_office_zip(path, "xlsx")
    import openpyxl

    try:
        workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as error:
        raise ExtractionError(f"The XLSX file could not be read ({short(error)}).") from error
    units: list[Unit] = []
    try:
        sheets = workbook.worksheets
        for number, sheet in enumerate(sheets, 1):
            rows = [line for line in map(row_line, sheet.iter_rows(values_only=True)) if line]
            units += table_units(rows, section=sheet.title, prefix=f"[Sheet: {sheet.title}]\n")
            progress({"page": number, "pages": len(sheets)})
    except Exception as error:
        raise ExtractionError(f"The XLSX file could not be read ({short(error)}).") from error
    finally:
        workbook.close()
    return {"units": units, "pages": len(sheets)}


def extract_csv(path: Path, progress: Progress) -> dict:
    text = decode_text(path.read_bytes())
    try:
        dialect = csv.Sniffer().sniff(text[:20_000], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    try:
        rows = [row_line(row) for row in csv.reader(io.StringIO(text), dialect)]
    except csv.Error as error:
        raise ExtractionError(f"The CSV file could not be read ({short(error)}).") from error
    rows = [row for row in rows if row]
    progress({"rows": len(rows)})
    return {"units": table_units(rows, section="", prefix=""), "pages": None}


# --- Text formats ------------------------------------------------------------------------------

HEADING = re.compile(r"^(#{1,3})[ \t]+(.+?)[ \t]*#*[ \t]*$")
FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")
# A one-line paragraph underlined with = (H1) or - (H2); after a list item or a blank line the
# dashes are a thematic break instead.
UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
NOT_A_TITLE = re.compile(r"^(?: {4}|\t|[ \t]*(?:[-*+>|]|\d{1,9}[.)])(?:[ \t]|$))")


def extract_md(path: Path, progress: Progress) -> dict:
    """One unit per H1-H3 section (`#` headings or underlined ones), each chunk of it prefixed
    with `[Section: A > B]`."""
    units: list[Unit] = []
    trail: list[str] = []
    lines: list[str] = []
    fenced = False

    def flush() -> None:
        text = "\n".join(lines).strip()
        lines.clear()
        if not text:
            return
        section = " > ".join(trail)
        units.append(
            Unit(
                text,
                section=section,
                prefix=f"[Section: {section}]\n" if section else "",
                min_chars=MIN_CHARS_STRUCTURED,
            )
        )

    def underlined(line: str) -> bool:
        if fenced or not UNDERLINE.match(line) or not lines or not lines[-1].strip():
            return False
        return (len(lines) == 1 or not lines[-2].strip()) and not NOT_A_TITLE.match(lines[-1])

    for line in decode_text(path.read_bytes()).splitlines():
        if FENCE.match(line):
            fenced = not fenced
        match = None if fenced else HEADING.match(line)
        if match or underlined(line):
            title = match.group(2) if match else lines.pop().strip()
            level = len(match.group(1)) if match else 1 if line.strip()[0] == "=" else 2
            flush()
            trail[level - 1 :] = [title]
            continue
        lines.append(line)
    flush()
    progress({"sections": len(units)})
    return {"units": units, "pages": None}


def extract_txt(path: Path, progress: Progress) -> dict:
    return {"units": [Unit(decode_text(path.read_bytes()))], "pages": None}


# <meta charset="…"> or <meta http-equiv="Content-Type" content="…; charset=…">, which browsers
# look for in the first kilobytes.
META_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?\s*([\w.:-]+)", re.IGNORECASE)
# Labels browsers read as another encoding than Python's codec of that name (WHATWG Encoding).
CHARSET_ALIASES = {
    "iso-8859-1": "cp1252",
    "latin1": "cp1252",
    "us-ascii": "cp1252",
    "ascii": "cp1252",
    "gb2312": "gbk",
}


def decode_declared(data: bytes, label: str | None) -> str:
    """Bytes a page or its server says are in the charset `label`: a byte-order mark outranks
    it, and valid UTF-8 stays UTF-8 whatever it says (servers and editors that name ISO-8859-1
    by default); else the label (a Russian page in windows-1251, a Polish one in ISO-8859-2).
    No label, or one Python does not know: as any text."""
    if not label or data.startswith((codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return decode_text(data)
    with contextlib.suppress(UnicodeDecodeError):
        return data.decode("utf-8")
    label = label.strip().lower()
    try:
        return data.decode(CHARSET_ALIASES.get(label, label), errors="replace")
    except LookupError:  # unknown, or not a text encoding ("base64")
        return decode_text(data)


def decode_html(data: bytes) -> str:
    match = META_CHARSET.search(data[:4096])
    return decode_declared(
        data, match.group(1).decode("ascii", errors="replace") if match else None
    )


def extract_html(path: Path, progress: Progress) -> dict:
    import trafilatura

    html = decode_html(path.read_bytes())
    text = trafilatura.extract(html, include_tables=True, include_comments=False)
    if not text or not text.strip():
        raise ExtractionError("No readable article text was found in this page.")
    return {"units": [Unit(text)], "pages": None}


EXTRACTORS: dict[str, Callable[[Path, Progress], dict]] = {
    "pdf": extract_pdf,
    "docx": extract_docx,
    "pptx": extract_pptx,
    "xlsx": extract_xlsx,
    "csv": extract_csv,
    "md": extract_md,
    "txt": extract_txt,
    "html": extract_html,
}


def extract(path: Path, fmt: str, progress: Progress = noop) -> dict:
    """In this process: {"units": [Unit], "pages": int | None, "ocr_pages": int, ...}."""
    if fmt not in EXTRACTORS:
        raise ExtractionError(f"The format {fmt!r} is not supported.")
    result = EXTRACTORS[fmt](Path(path), progress)
    result.setdefault("ocr_pages", 0)
    result.setdefault("ocr_seconds", 0.0)
    return result


# --- The child process -------------------------------------------------------------------------

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def die_with_parent() -> None:
    """Linux: the child gets SIGKILL when the worker that started it dies (even by kill -9)."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def run_isolated(
    path: Path,
    fmt: str,
    *,
    timeout: float,
    memory_mb: int,
    on_progress: Progress = noop,
    name: str = "",
) -> dict:
    """`extract` in a child process that is killed after `timeout` seconds and may not use more
    than `memory_mb` of address space. Units come back as dicts. Raises ExtractionError, whose
    text calls the file `name` (as its owner knows it) where a reader quoted the stored path."""
    limit = memory_mb * 1024 * 1024

    def limit_child() -> None:
        die_with_parent()
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        # A backstop for an orphan whose worker was killed before its timer could fire.
        cpu = int(timeout) + 30
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))

    process = subprocess.Popen(
        [sys.executable, "-m", "apps.vault.extract", fmt, str(path)],
        cwd=PROJECT_ROOT,
        env={**os.environ, "OMP_THREAD_LIMIT": "1"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=limit_child,  # noqa: PLW1509 - no threads touch the fork window here
        start_new_session=True,  # so Tesseract dies with it
    )
    timed_out = threading.Event()

    def kill() -> None:
        timed_out.set()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)

    timer = threading.Timer(timeout, kill)
    timer.start()
    result: dict | None = None
    error: str | None = None
    try:
        for line in process.stdout:
            message = json.loads(line)
            if "progress" in message:
                on_progress(message["progress"])
            elif "result" in message:
                result = message["result"]
            elif "error" in message:
                error = message["error"]
        process.wait()
    finally:
        timer.cancel()
        if process.poll() is None:
            kill()
            process.wait()
    if timed_out.is_set() and result is None and error is None:
        raise ExtractionError(f"Reading this file took longer than {timeout:g} s and was stopped.")
    if error is not None:
        raise ExtractionError(error.replace(str(path), name or path.name))
    if result is None:
        raise ExtractionError(
            "The file could not be read: the reader stopped unexpectedly "
            f"(exit code {process.returncode}); it may be too large or malformed."
        )
    return result


def _main(fmt: str, path: str) -> int:
    # Libraries may print to stdout; the protocol gets its own copy of it, they get stderr.
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    last = 0.0

    def emit(message: dict) -> None:
        out.write(json.dumps(message) + "\n")
        out.flush()

    def progress(event: dict) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= 0.2:
            last = now
            emit({"progress": event})

    try:
        result = extract(Path(path), fmt, progress)
    except ExtractionError as error:
        emit({"error": str(error)})
        return 0
    except MemoryError:
        emit({"error": "The file needs more memory to read than a worker may use."})
        return 0
    except Exception as error:  # a parser bug must still end as a readable failure
        emit({"error": f"The file could not be read ({type(error).__name__}: {short(error)})."})
        return 0
    result["units"] = [unit.as_dict() for unit in result["units"]]
    emit({"result": result})
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1], sys.argv[2]))
