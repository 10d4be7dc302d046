"""Real files of every format, generated with the same libraries people's tools use."""

import csv
import io
import zipfile
from pathlib import Path

import docx
import openpyxl
import pymupdf
from pptx import Presentation
from pptx.util import Inches

LOREM = (
    "Die Photosynthese wandelt Lichtenergie in chemische Energie um. Chloroplasten enthalten "
    "Chlorophyll, das vor allem rotes und blaues Licht absorbiert. "
)


def text_pdf(path: Path, pages: int = 3, words: str = LOREM) -> Path:
    document = pymupdf.open()
    for number in range(1, pages + 1):
        page = document.new_page()
        page.insert_textbox(
            pymupdf.Rect(50, 50, 550, 800), f"Page {number}. " + words * 4, fontsize=10
        )
    document.save(path)
    return path


def scanned_page_pdf(path: Path, text_pages: int = 1, scanned_text: str = "") -> Path:
    """Text pages followed by one page that is only a picture of text (no text layer)."""
    scanned_text = scanned_text or (
        "Mitochondrien sind die Kraftwerke der Zelle. Sie erzeugen Energie in Form von ATP "
        "und besitzen eine eigene DNA."
    )
    source = pymupdf.open()
    page = source.new_page()
    page.insert_textbox(pymupdf.Rect(40, 40, 560, 400), scanned_text, fontsize=22)
    picture = page.get_pixmap(dpi=200).tobytes("png")
    document = pymupdf.open()
    for number in range(1, text_pages + 1):
        document.new_page().insert_textbox(
            pymupdf.Rect(50, 50, 550, 800), f"Page {number}. " + LOREM * 3, fontsize=10
        )
    document.new_page().insert_image(pymupdf.Rect(0, 0, 595, 842), stream=picture)
    document.save(path)
    return path


def encrypted_pdf(path: Path) -> Path:
    document = pymupdf.open()
    document.new_page().insert_text((72, 72), "secret " * 50)
    document.save(
        path, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", user_pw="user-password"
    )
    return path


def docx_file(path: Path) -> Path:
    document = docx.Document()
    document.add_heading("Zellbiologie", level=1)
    document.add_paragraph(LOREM * 2)
    document.add_heading("Mitochondrien", level=2)
    document.add_paragraph("Mitochondrien erzeugen ATP durch Zellatmung. " * 4)
    table = document.add_table(rows=3, cols=2)
    for row, (name, value) in enumerate(
        [("Organell", "Funktion"), ("Ribosom", "Proteinsynthese"), ("Golgi", "Sortierung")]
    ):
        table.cell(row, 0).text = name
        table.cell(row, 1).text = value
    document.save(path)
    return path


def pptx_file(path: Path, slides: int = 3) -> Path:
    presentation = Presentation()
    for number in range(1, slides + 1):
        slide = presentation.slides.add_slide(presentation.slide_layouts[1])
        slide.shapes.title.text = f"Slide title {number}"
        slide.placeholders[1].text = f"Body of slide {number}: the Krebs cycle, step {number}."
    box = presentation.slides[0].shapes.add_textbox(Inches(1), Inches(5), Inches(4), Inches(1))
    box.text_frame.text = "An extra text box"
    presentation.save(path)
    return path


def xlsx_file(path: Path, rows: int = 45) -> Path:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Budget"
    sheet.append(["Quarter", "Item", "Amount"])
    for number in range(1, rows + 1):
        sheet.append([f"Q{number % 4 + 1}", f"Item {number}", number * 10])
    other = workbook.create_sheet("Notes")
    other.append(["Topic", "Remark"])
    other.append(["Enzymes", "Lower the activation energy"])
    workbook.save(path)
    return path


def csv_file(path: Path, rows: int = 45) -> Path:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["species", "habitat", "count"])
    for number in range(1, rows + 1):
        writer.writerow([f"Species {number}", "Wald" if number % 2 else "Wiese", number])
    path.write_text(buffer.getvalue(), encoding="utf-8")
    return path


MARKDOWN = """Intro text before any heading, long enough to count as a section of its own.

# Genetics

Genes are stretches of DNA that code for proteins; this section explains them.

## Transcription

Transcription copies a gene into messenger RNA inside the nucleus of the cell.

```
# not a heading inside a code fence
```

### RNA polymerase

The enzyme RNA polymerase reads the template strand from 3' to 5'.

# Ecology

Ecosystems are communities of organisms and their physical environment together.
"""


def markdown_file(path: Path) -> Path:
    path.write_text(MARKDOWN, encoding="utf-8")
    return path


HTML = """<!doctype html><html><head><title>Enzymes</title></head><body>
<nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article><h1>How enzymes work</h1>
<p>Enzymes are proteins that speed up chemical reactions in living cells by lowering the
activation energy. Each enzyme has an active site that binds its substrate.</p>
<p>Temperature and pH change the shape of the active site, which is why enzymes work best
within a narrow range of conditions. Denatured enzymes lose their function.</p>
</article><footer>Copyright footer text</footer></body></html>"""


def html_file(path: Path) -> Path:
    path.write_text(HTML, encoding="utf-8")
    return path


def zip_with(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path
