"""The retrieval evaluation: real, openly licensed documents (sources.tsv) and questions about them.

The documents are kept as plain text (one HTML page) and turned into the format sources.tsv names
when the evaluation runs (PDF, DOCX, Markdown, a scanned PDF whose pages are only pictures), then
read by the app's own extractors, OCR included. questions.tsv gives each question its kind
(`paraphrase`: worded without the passage's key terms; `identifier`: names an exact term) and a
phrase of the passage that answers it; a retrieved chunk answers when it contains that phrase.
Every fifth question of each kind is held out (`split`), so a choice tuned on the rest can be
checked on questions it was not tuned on.
"""

import hashlib
import json
import os
import re
import textwrap
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).parent
DOCUMENTS = HERE / "documents"
CACHE = Path(os.environ.get("BENCH_CACHE", Path.home() / ".cache" / "cognivault" / "bench"))
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")  # fonts-dejavu-core
HEADING = re.compile(r"^[A-ZÄÖÜ][A-ZÄÖÜ0-9 ,/()-]{3,}$")  # a manual page's section title


@dataclass(frozen=True)
class Source:
    file: str
    format: str  # html, txt, md, docx, pdf or scanned-pdf
    language: str
    licence: str
    origin: str


@dataclass(frozen=True)
class Question:
    id: str
    file: str
    kind: str  # paraphrase or identifier
    text: str
    answer: str  # a phrase of the passage that answers it
    split: str  # tuning, or held-out: every fifth of each kind, never tuned on


def sources() -> list[Source]:
    return [Source(*line.split("\t")) for line in _rows(HERE / "sources.tsv")]


def questions() -> list[Question]:
    return [Question(*line.split("\t")) for line in _rows(HERE / "questions.tsv")]


def _rows(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.strip() and not line.startswith("#")]


def normalised(text: str) -> str:
    """Lower case, one space for any run of white space: how answers are matched to chunks."""
    return " ".join(text.lower().split())


def answers(chunk_text: str, question: Question) -> bool:
    return normalised(question.answer) in normalised(chunk_text)


# --- Making the files and reading them back with the app's extractors ---------------------------


def units(source: Source) -> list[dict]:
    """The extracted units of the source in its format, as the extract step stores them.

    Cached by the text and format (the scanned PDF is OCRed, which takes a while).
    """
    text = (DOCUMENTS / source.file).read_text(encoding="utf-8")
    key = hashlib.sha256(f"{source.format}\n{text}".encode()).hexdigest()[:16]
    cached = CACHE / f"eval-{key}.json"
    if cached.exists():
        return json.loads(cached.read_text())
    from apps.vault.readers import extract

    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"eval-{key}.{source.format.removeprefix('scanned-')}"
    MAKERS[source.format](text, path)
    result = extract(path, source.format.removeprefix("scanned-"))
    found = [asdict(unit) for unit in result["units"]]
    path.unlink()
    cached.write_text(json.dumps(found))
    return found


def _as_is(text: str, path: Path) -> None:
    path.write_text(text, encoding="utf-8")


def _markdown(text: str, path: Path) -> None:
    lines = [f"## {line.title()}" if HEADING.match(line) else line for line in text.splitlines()]
    path.write_text("\n".join(lines), encoding="utf-8")


def _docx(text: str, path: Path) -> None:
    import docx

    document = docx.Document()
    for block in text.split("\n\n"):
        block = block.strip()
        if HEADING.match(block):
            document.add_heading(block.title(), level=1)
        elif block:
            document.add_paragraph(block)
    document.save(path)


def _pdf_pages(text: str):
    import pymupdf

    lines = []
    for paragraph in text.splitlines():
        lines.extend(textwrap.wrap(paragraph, 95) or [""])
    document = pymupdf.open()
    per_page = 64
    for start in range(0, len(lines), per_page):
        page = document.new_page()
        page.insert_text(
            (50, 60),
            "\n".join(lines[start : start + per_page]),
            fontsize=9,
            fontname="dejavu",
            fontfile=str(FONT),
        )
    return document


def _pdf(text: str, path: Path) -> None:
    _pdf_pages(text).save(path)


def _scanned_pdf(text: str, path: Path) -> None:
    """Each page only a picture of the text, as a scanner makes it: no text layer to read."""
    import pymupdf

    scanned = pymupdf.open()
    for page in _pdf_pages(text):
        picture = page.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY).tobytes("png")
        scanned.new_page().insert_image(pymupdf.Rect(0, 0, 595, 842), stream=picture)
    scanned.save(path)


MAKERS = {
    "html": _as_is,
    "txt": _as_is,
    "md": _markdown,
    "docx": _docx,
    "pdf": _pdf,
    "scanned-pdf": _scanned_pdf,
}
