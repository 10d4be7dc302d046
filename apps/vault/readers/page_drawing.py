"""A PDF page drawn for reading, in the sandbox child: its image at screen resolution (PNG) and
its words with their rectangles, from the text layer or, for a scan, from OCR. Rectangles are in
points from the top left of the page as drawn (rotation applied)."""

import base64
from pathlib import Path

from apps.vault.readers.common import ExtractionError, short
from apps.vault.readers.pdf import OCR_DPI, OCR_MIN_CHARS, ocr_words

DRAW_DPI = 144  # sharp on a phone's screen; an A4 page is about 150 KB
MAX_SIDE = 2400  # pixels: a poster-sized page is drawn smaller rather than refused


def draw_page(path: Path, number: int) -> dict:
    """{"png": base64, "width", "height" (points), "words": [[x0, y0, x1, y1, text, block,
    line]], "ocr": bool, "pages": int}. A page with (almost) no text is read by OCR, as the
    extract step read it, so its words are the ones its chunks hold."""
    import pymupdf

    try:
        document = pymupdf.open(path, filetype="pdf")
    except Exception as error:
        raise ExtractionError(f"The PDF cannot be drawn ({short(error)}).") from error
    with document:
        if document.needs_pass:
            raise ExtractionError("The PDF is password-protected.")
        if not 1 <= number <= document.page_count:
            raise ExtractionError(f"The PDF has no page {number}.")
        page = document.load_page(number - 1)
        rect = page.rect
        zoom = min(DRAW_DPI / 72, MAX_SIDE / max(rect.width, rect.height, 1))
        pixmap = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
        scanned = len(page.get_text("text").strip()) < OCR_MIN_CHARS
        return {
            "units": [],
            "pages": document.page_count,
            "png": base64.b64encode(pixmap.tobytes("png")).decode("ascii"),
            "width": round(rect.width, 2),
            "height": round(rect.height, 2),
            "words": scanned_words(page, number) if scanned else text_words(page),
            "ocr": scanned,
        }


def text_words(page) -> list[list]:
    """The text layer's words; blocks and lines numbered in reading order."""
    import pymupdf

    blocks: dict[int, int] = {}
    lines: dict[tuple[int, int], int] = {}
    words = []
    for x0, y0, x1, y1, text, block, line, _ in page.get_text("words", sort=True):
        box = pymupdf.Rect(x0, y0, x1, y1) * page.rotation_matrix
        words.append(
            [
                *(round(value, 1) for value in box),
                text,
                blocks.setdefault(block, len(blocks)),
                lines.setdefault((block, line), len(lines)),
            ]
        )
    return words


def scanned_words(page, number: int) -> list[list]:
    """Tesseract's words, its paragraphs as blocks, with their boxes in points."""
    data = ocr_words(page, number)
    scale = 72 / OCR_DPI
    blocks: dict[tuple[int, int], int] = {}
    lines: dict[tuple[int, int, int], int] = {}
    words = []
    for i, text in enumerate(data["text"]):
        if not text.strip():
            continue
        paragraph = (data["block_num"][i], data["par_num"][i])
        left, top = data["left"][i], data["top"][i]
        right, bottom = left + data["width"][i], top + data["height"][i]
        words.append(
            [
                *(round(value * scale, 1) for value in (left, top, right, bottom)),
                text,
                blocks.setdefault(paragraph, len(blocks)),
                lines.setdefault((*paragraph, data["line_num"][i]), len(lines)),
            ]
        )
    return words
