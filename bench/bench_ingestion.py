"""Ingestion throughput without the model: text PDF pages/s (pymupdf against pypdf, in process
and through the reading sandbox's child), DOCX paragraphs/s, OCR seconds per scanned page
(Tesseract deu+eng with OMP_THREAD_LIMIT=1 against its default threads, and through the
sandbox's child as ingestion reads it), chunking chunks/s."""

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import docx  # noqa: E402
from pypdf import PdfReader  # noqa: E402

from apps.vault.chunking import Unit, pieces_from_units  # noqa: E402
from apps.vault.readers import extract, run_isolated  # noqa: E402
from apps.vault.tests import files  # noqa: E402

RUNS = 3
PAGES = 200
PARAGRAPHS = 2000
SCANNED = 4


def median_seconds(work, runs: int = RUNS) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def make_docx(path: Path) -> Path:
    document = docx.Document()
    for number in range(PARAGRAPHS):
        if number % 50 == 0:
            document.add_heading(f"Kapitel {number // 50 + 1}", level=1)
        document.add_paragraph(f"Absatz {number}: " + files.LOREM)
    document.save(path)
    return path


def ocr_seconds(path: Path, threads: str | None) -> float:
    """One child per measurement, so the Tesseract thread setting is the only difference."""
    env = {**os.environ}
    env.pop("OMP_THREAD_LIMIT", None)
    if threads:
        env["OMP_THREAD_LIMIT"] = threads
    code = (
        "import sys, time; from pathlib import Path; from apps.vault.readers import extract;"
        "t = time.perf_counter(); extract(Path(sys.argv[1]), 'pdf');"
        "print(time.perf_counter() - t)"
    )
    times = [
        float(
            subprocess.run(
                [sys.executable, "-c", code, str(path)],
                cwd=Path(__file__).resolve().parent.parent,
                env=env,
                check=True,
                capture_output=True,
                text=True,
            ).stdout.strip()
        )
        for _ in range(RUNS)
    ]
    return statistics.median(times) / SCANNED


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        pdf = files.text_pdf(root / "book.pdf", pages=PAGES)
        mupdf = median_seconds(lambda: extract(pdf, "pdf"))
        pypdf = median_seconds(lambda: [page.extract_text() for page in PdfReader(pdf).pages])
        child = median_seconds(lambda: run_isolated(pdf, "pdf", timeout=600, memory_mb=3072))
        # The whole book as one text, so the splitter really cuts and overlaps.
        units = [Unit("\n\n".join(unit.text for unit in extract(pdf, "pdf")["units"]))]
        chunks = len(list(pieces_from_units(units)))
        chunking = median_seconds(lambda: list(pieces_from_units(units)))
        word = make_docx(root / "long.docx")
        docx_time = median_seconds(lambda: extract(word, "docx"))
        scanned = files.scanned_book(root / "scanned.pdf", SCANNED)
        ocr_one = ocr_seconds(scanned, "1")
        ocr_default = ocr_seconds(scanned, None)
        ocr_child = median_seconds(
            lambda: run_isolated(scanned, "pdf", timeout=600, memory_mb=3072)
        )

    print(f"## Ingestion throughput (model time excluded; median of {RUNS} runs)\n")
    print("| measurement | value | note |")
    print("| --- | --- | --- |")
    print(f"| text PDF, pymupdf | {PAGES / mupdf:,.0f} pages/s | {PAGES}-page generated PDF |")
    ratio = pypdf / mupdf
    print(f"| text PDF, pypdf | {PAGES / pypdf:,.0f} pages/s | pymupdf is {ratio:.1f}x faster |")
    print(
        f"| text PDF, isolated child | {PAGES / child:,.0f} pages/s | incl. process start, JSON |"
    )
    print(f"| chunking (1000/100) | {chunks / chunking:,.0f} chunks/s | {chunks} chunks |")
    print(f"| DOCX | {PARAGRAPHS / docx_time:,.0f} paragraphs/s | {PARAGRAPHS} paragraphs |")
    print(f"| OCR, OMP_THREAD_LIMIT=1 | {ocr_one:.2f} s/page | Tesseract deu+eng, 144 dpi |")
    print(
        f"| OCR, default threads | {ocr_default:.2f} s/page | "
        f"limit of 1 is {ocr_default / ocr_one:.1f}x faster |"
    )
    print(f"| OCR, isolated child | {ocr_child / SCANNED:.2f} s/page | incl. process start |")


if __name__ == "__main__":
    main()
