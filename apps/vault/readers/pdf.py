"""Scanned PDFs and PDFs with text: PyMuPDF page by page, pypdf when PyMuPDF refuses the file,
and Tesseract OCR for a page with (almost) no text."""

import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from apps.vault.chunking import Unit
from apps.vault.readers.common import ExtractionError, Progress, short

OCR_MIN_CHARS = 50  # a page with less text than this is taken for a scan
OCR_DPI = 144
OCR_LANGUAGES = "deu+eng"


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
    """The page's text read by Tesseract (German and English)."""
    import pytesseract

    return tesseract(pytesseract.image_to_string, page, number)


def ocr_words(page, number: int) -> dict:
    """Tesseract's words of the page with their boxes in pixels of `ocr_image` (the same reading
    as `ocr_page`'s: one engine, one image)."""
    import pytesseract

    return tesseract(
        partial(pytesseract.image_to_data, output_type=pytesseract.Output.DICT), page, number
    )


def tesseract(read: Callable, page, number: int):
    import pytesseract

    image = ocr_image(page, number)
    try:
        return read(image, lang=OCR_LANGUAGES)
    except pytesseract.TesseractNotFoundError as error:
        raise ExtractionError("Tesseract is not installed, so scanned pages cannot be read.") from (
            error
        )
    except pytesseract.TesseractError as error:
        raise ExtractionError(f"OCR failed on page {number} ({short(error)}).") from error


def ocr_image(page, number: int):
    """The page rendered at ~144 dpi in grey, as Tesseract reads it."""
    import pymupdf
    from PIL import Image

    zoom = OCR_DPI / 72
    pixels = page.rect.width * zoom * page.rect.height * zoom
    if pixels > Image.MAX_IMAGE_PIXELS:
        raise ExtractionError(
            f"Page {number} is too large to render for OCR ({pixels / 1e6:.0f} megapixels)."
        )
    pixmap = page.get_pixmap(dpi=OCR_DPI, colorspace=pymupdf.csGRAY, alpha=False)
    return Image.frombytes("L", (pixmap.width, pixmap.height), pixmap.samples)
