"""Real files of every format, generated with the same libraries people's tools use."""

import csv
import io
import zipfile
from pathlib import Path

import docx
import openpyxl
import pymupdf
from docx.oxml import parse_xml
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


WORD = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
DRAWING = (
    'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
    'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" '
    'xmlns:v="urn:schemas-microsoft-com:vml" '
    'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"'
)


def text_box(text: str) -> str:
    """A run holding a text box as Word writes it: a shape, and a VML copy for old readers."""
    content = f"<w:txbxContent><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:txbxContent>"
    return (
        f'<w:r {WORD} {DRAWING}><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing>'
        '<wp:inline><wp:extent cx="2000000" cy="500000"/><wp:docPr id="1" name="Textfeld 1"/>'
        '<a:graphic><a:graphicData uri="http://schemas.microsoft.com/office/word/2010/'
        'wordprocessingShape"><wps:wsp><wps:cNvSpPr txBox="1"/><wps:spPr/>'
        f"<wps:txbx>{content}</wps:txbx><wps:bodyPr/></wps:wsp></a:graphicData></a:graphic>"
        "</wp:inline></w:drawing></mc:Choice><mc:Fallback><w:pict><v:shape><v:textbox>"
        f"{content}</v:textbox></v:shape></w:pict></mc:Fallback></mc:AlternateContent></w:r>"
    )


def worksheet_docx(path: Path) -> Path:
    """A worksheet as Word saves one: a content control, an edit still tracked as an insertion,
    an inline field to fill in, and a text box."""
    document = docx.Document()
    document.add_heading("Arbeitsblatt Lizenzen", level=1)
    body = document.element.body
    body.insert(
        len(body) - 1,
        parse_xml(
            f'<w:sdt {WORD}><w:sdtPr><w:alias w:val="Aufgabe"/></w:sdtPr><w:sdtContent><w:p>'
            "<w:r><w:t>Aufgabe 1: Erkläre starkes und schwaches Copyleft.</w:t></w:r>"
            "</w:p></w:sdtContent></w:sdt>"
        ),
    )
    paragraph = document.add_paragraph("Die GPL verlangt ")
    paragraph._p.append(
        parse_xml(
            f'<w:ins {WORD} w:id="1" w:author="Lehrerin" w:date="2026-11-30T10:00:00Z">'
            "<w:r><w:t>bei Weitergabe </w:t></w:r></w:ins>"
        )
    )
    paragraph.add_run("die Offenlegung des Quelltextes.")
    name = document.add_paragraph("Name: ")
    name._p.append(
        parse_xml(
            f"<w:sdt {WORD}><w:sdtPr/><w:sdtContent><w:r><w:t>Max Mustermann</w:t></w:r>"
            "</w:sdtContent></w:sdt>"
        )
    )
    box = document.add_paragraph("Siehe Kasten.")
    box._p.append(parse_xml(text_box("Merke: Copyleft vererbt die Lizenz an Bearbeitungen.")))
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


def scanned_book(path: Path, pages: int) -> Path:
    """Only scans, each page its own text: every page goes through OCR (slow on purpose)."""
    document = pymupdf.open()
    for number in range(1, pages + 1):
        text = f"Seite {number}. Die Zelle Nummer {number} teilt sich durch Mitose. " * 2
        single = scanned_page_pdf(path.with_name(f"{path.stem}-{number}.pdf"), 0, text)
        document.insert_pdf(pymupdf.open(single))
    document.save(path)
    return path
