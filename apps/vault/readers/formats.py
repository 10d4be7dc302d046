"""Which reader reads which format (the vault's, "image" for a chat attachment's header, "audio"
for a recording to transcribe, and "pdf-page-N" for page N of a PDF drawn for reading), and
`extract`, which runs one in this process: the sandbox child, tests and benches call it."""

from collections.abc import Callable
from pathlib import Path

from apps.vault.readers.audio import read_audio
from apps.vault.readers.common import ExtractionError, Progress, noop
from apps.vault.readers.image import read_image
from apps.vault.readers.office import extract_docx, extract_pptx
from apps.vault.readers.page_drawing import draw_page
from apps.vault.readers.pdf import extract_pdf
from apps.vault.readers.sheets import extract_csv, extract_xlsx
from apps.vault.readers.text import extract_html, extract_md, extract_txt

EXTRACTORS: dict[str, Callable[..., dict]] = {
    "pdf": extract_pdf,
    "docx": extract_docx,
    "pptx": extract_pptx,
    "xlsx": extract_xlsx,
    "csv": extract_csv,
    "md": extract_md,
    "txt": extract_txt,
    "html": extract_html,
    "image": read_image,
    "audio": read_audio,
}
PAGE_KIND = "pdf-page-"  # and the page's number (a colon names a module's reader: sandbox.py)


def extract(path: Path, fmt: str, progress: Progress = noop, **options) -> dict:
    """In this process: {"units": [Unit], "pages": int | None, "ocr_pages": int, ...}."""
    number = fmt.removeprefix(PAGE_KIND)
    if fmt.startswith(PAGE_KIND) and number.isdigit():
        return draw_page(Path(path), int(number))
    if fmt not in EXTRACTORS:
        raise ExtractionError(f"The format {fmt!r} is not supported.")
    result = EXTRACTORS[fmt](Path(path), progress, **options)
    result.setdefault("ocr_pages", 0)
    result.setdefault("ocr_seconds", 0.0)
    return result
