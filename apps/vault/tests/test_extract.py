"""Every format from a real file of that format, OCR of a scanned page, and hostile files."""

import datetime
import zipfile

import docx
import openpyxl
import pymupdf
import pytest
from pptx import Presentation

from apps.vault.chunking import Unit, pieces_from_units
from apps.vault.readers import ExtractionError, extract, run_isolated
from apps.vault.tests import files


def pieces(result):
    units = [unit if isinstance(unit, Unit) else Unit(**unit) for unit in result["units"]]
    return list(pieces_from_units(units))


def isolated(path, fmt, **options):
    options.setdefault("timeout", 60)
    options.setdefault("memory_mb", 2048)
    return run_isolated(path, fmt, **options)


def test_pdf_pages_keep_their_numbers(tmp_path):
    result = isolated(files.text_pdf(tmp_path / "bio.pdf", pages=3), "pdf")
    chunks = pieces(result)
    assert result["pages"] == 3
    assert {chunk.page for chunk in chunks} == {1, 2, 3}
    assert chunks[0].text.startswith("Page 1.")
    assert "Photosynthese" in chunks[0].text


def test_a_scanned_page_is_read_by_ocr(tmp_path):
    events = []
    result = isolated(
        files.scanned_page_pdf(tmp_path / "scan.pdf", text_pages=1),
        "pdf",
        on_progress=events.append,
    )
    scanned = [chunk for chunk in pieces(result) if chunk.page == 2]
    assert result["ocr_pages"] == 1
    assert scanned and "Mitochondrien" in scanned[0].text and "Kraftwerke" in scanned[0].text


def test_docx_keeps_paragraphs_tables_and_headings(tmp_path):
    chunks = pieces(isolated(files.docx_file(tmp_path / "zelle.docx"), "docx"))
    text = "\n".join(chunk.text for chunk in chunks)
    assert "Ribosom | Proteinsynthese" in text
    assert any(chunk.section == "Zellbiologie > Mitochondrien" for chunk in chunks)


def test_docx_keeps_a_table_inside_a_table_cell(tmp_path):
    document = docx.Document()
    document.add_paragraph("Diese Übersicht vergleicht die Pflichten gängiger Lizenzen.")
    table = document.add_table(rows=3, cols=3)
    table.cell(0, 0).merge(table.cell(0, 2)).text = "Vergleich der Pflichten"
    for column, text in enumerate(["Lizenz", "Quelltext offenlegen", "Patentklausel"]):
        table.cell(1, column).text = text
    for column, text in enumerate(["GPL-3", "ja, bei Weitergabe", "ja"]):
        table.cell(2, column).text = text
    inner = table.cell(2, 2).add_table(rows=1, cols=2)
    inner.cell(0, 0).text = "Abschnitt 11"
    inner.cell(0, 1).text = "ausdrückliche Patentlizenz"
    path = tmp_path / "tabellen.docx"
    document.save(path)
    text = "\n".join(chunk.text for chunk in pieces(isolated(path, "docx")))
    assert "Vergleich der Pflichten\nLizenz | Quelltext offenlegen | Patentklausel\n" in text
    assert "GPL-3 | ja, bei Weitergabe | ja\nAbschnitt 11 | ausdrückliche Patentlizenz" in text


def test_docx_keeps_content_controls_tracked_insertions_and_text_boxes(tmp_path):
    [unit] = isolated(files.worksheet_docx(tmp_path / "arbeitsblatt.docx"), "docx")["units"]
    assert unit["text"] == (
        "Arbeitsblatt Lizenzen\n"
        "Aufgabe 1: Erkläre starkes und schwaches Copyleft.\n"
        "Die GPL verlangt bei Weitergabe die Offenlegung des Quelltextes.\n"
        "Name: Max Mustermann\n"
        "Siehe Kasten.\n"
        "Merke: Copyleft vererbt die Lizenz an Bearbeitungen."
    )


def test_pptx_gives_one_chunk_per_slide(tmp_path):
    chunks = pieces(isolated(files.pptx_file(tmp_path / "slides.pptx", slides=3), "pptx"))
    assert [chunk.page for chunk in chunks] == [1, 2, 3]
    assert chunks[0].text.startswith("Slide title 1\n\nBody of slide 1")  # the title apart
    assert "An extra text box" in chunks[0].text


def test_a_line_break_inside_a_slide_paragraph_is_a_line_break(tmp_path):
    # Shift+Enter in PowerPoint: python-pptx gives it as a vertical tab, which no page shows.
    presentation = Presentation()
    slide = presentation.slides.add_slide(presentation.slide_layouts[1])
    slide.shapes.title.text = "Copyleft"
    slide.placeholders[1].text_frame.text = "Strong copyleft: GPL\vWeak copyleft: LGPL, MPL"
    path = tmp_path / "copyleft.pptx"
    presentation.save(path)
    [chunk] = pieces(isolated(path, "pptx"))
    assert chunk.text == "Copyleft\n\nStrong copyleft: GPL\nWeak copyleft: LGPL, MPL"


def test_xlsx_batches_rows_with_the_header_and_sheet_name(tmp_path):
    chunks = pieces(isolated(files.xlsx_file(tmp_path / "budget.xlsx", rows=45), "xlsx"))
    budget = [chunk for chunk in chunks if chunk.section == "Budget"]
    assert len(budget) == 3  # 45 rows: 20 + 20 + 5
    for chunk in budget:
        assert chunk.text.startswith("[Sheet: Budget]\nQuarter | Item | Amount\n")
    assert budget[0].text.count("\n") == 21
    assert any(chunk.section == "Notes" and "Enzymes" in chunk.text for chunk in chunks)


def test_xlsx_dates_read_as_written_without_a_midnight(tmp_path):
    workbook = openpyxl.Workbook()
    workbook.active.title = "Termine"
    workbook.active.append(["Datum", "Thema", "Beginn"])
    workbook.active.append([datetime.date(2026, 3, 5), "Prüfung Lizenzen", datetime.time(9, 30)])
    workbook.active.append([datetime.datetime(2026, 3, 12, 14, 0), "Übung GPL", None])
    path = tmp_path / "termine.xlsx"
    workbook.save(path)
    [chunk] = pieces(isolated(path, "xlsx"))
    assert chunk.text == (
        "[Sheet: Termine]\nDatum | Thema | Beginn\n"
        "2026-03-05 | Prüfung Lizenzen | 09:30\n2026-03-12 14:00 | Übung GPL"
    )


def test_a_cell_written_on_several_lines_stays_in_its_row(tmp_path):
    # Alt+Enter in a spreadsheet, a quoted field over two lines in a CSV: one row, one line.
    workbook = openpyxl.Workbook()
    workbook.active.append(["Lizenz", "Pflichten"])
    workbook.active.append(["GPL-3", "Quelltext offenlegen\nLizenztext beilegen"])
    workbook.save(tmp_path / "pflichten.xlsx")
    (tmp_path / "pflichten.csv").write_text(
        'Lizenz,Pflichten\nGPL-3,"Quelltext offenlegen\nLizenztext beilegen"\n'
    )
    for fmt, prefix in (("xlsx", "[Sheet: Sheet]\n"), ("csv", "")):
        [chunk] = pieces(isolated(tmp_path / f"pflichten.{fmt}", fmt))
        assert chunk.text == (
            f"{prefix}Lizenz | Pflichten\nGPL-3 | Quelltext offenlegen Lizenztext beilegen"
        )


def test_csv_batches_rows_with_the_header(tmp_path):
    chunks = pieces(isolated(files.csv_file(tmp_path / "arten.csv", rows=45), "csv"))
    assert len(chunks) == 3
    assert all(chunk.text.startswith("species | habitat | count\n") for chunk in chunks)
    assert "Species 45 | Wald | 45" in chunks[-1].text


def test_markdown_sections_carry_their_breadcrumb(tmp_path):
    chunks = pieces(isolated(files.markdown_file(tmp_path / "notes.md"), "md"))
    by_section = {chunk.section: chunk.text for chunk in chunks}
    assert by_section["Genetics > Transcription > RNA polymerase"].startswith(
        "[Section: Genetics > Transcription > RNA polymerase]\n"
    )
    assert "# not a heading" in by_section["Genetics > Transcription"]
    assert "Ecology" in by_section
    assert by_section[""].startswith("Intro text")


def test_markdown_underlined_headings_open_sections_too(tmp_path):
    # How many READMEs write their H1 and H2 (git's, GTK's): the title underlined with = or -.
    path = tmp_path / "README.md"
    path.write_text(
        "General Information\n===================\n\n"
        "GTK is a multi-platform toolkit for creating graphical user interfaces.\n\n"
        "Building\n--------\n\nRun meson and ninja in a fresh build directory of its own.\n\n"
        "- a list item\n---\n\nText after a thematic break stays in the same section.\n"
    )
    chunks = pieces(isolated(path, "md"))
    by_section = {chunk.section: chunk.text for chunk in chunks}
    assert by_section["General Information"] == (
        "[Section: General Information]\n"
        "GTK is a multi-platform toolkit for creating graphical user interfaces."
    )
    building = by_section["General Information > Building"]
    assert building.startswith("[Section: General Information > Building]\nRun meson")
    assert "- a list item\n\nText after a thematic break" in building  # the rule is no heading
    assert "thematic break" in building


def test_a_long_markdown_section_is_split_and_each_piece_keeps_the_breadcrumb(tmp_path):
    path = tmp_path / "long.md"
    path.write_text("# Big\n\n" + "A sentence about cells and their parts. " * 80)
    chunks = pieces(isolated(path, "md"))
    assert len(chunks) >= 3
    assert all(chunk.text.startswith("[Section: Big]\n") for chunk in chunks)
    assert all(len(chunk.text) <= 1000 for chunk in chunks)


def test_text_tolerates_bad_bytes_and_old_encodings(tmp_path):
    path = tmp_path / "alt.txt"
    path.write_bytes("Grüße aus München, ".encode("cp1252") * 10 + b"\xff\xfe broken")
    text = pieces(isolated(path, "txt"))[0].text
    assert "Grüße aus München" in text


def test_a_windows_text_file_is_cut_at_its_paragraphs_like_any_other(tmp_path):
    # Notepad writes CRLF: "\r\n\r\n" holds no "\n\n", so the splitter cut mid-sentence.
    paragraphs = [
        f"Paragraph {n} says something about licenses and their terms. " * 6 for n in "ABCD"
    ]
    unix, windows = tmp_path / "unix.txt", tmp_path / "windows.txt"
    unix.write_text("\n\n".join(paragraphs))
    windows.write_bytes("\r\n\r\n".join(paragraphs).encode())
    chunks = [chunk.text for chunk in pieces(isolated(windows, "txt"))]
    assert chunks == [chunk.text for chunk in pieces(isolated(unix, "txt"))]
    assert all(chunk.startswith("Paragraph") and "\r" not in chunk for chunk in chunks)


@pytest.mark.parametrize("fmt", ["txt", "md", "csv"])
def test_a_utf8_file_with_one_stray_latin1_byte_stays_utf8(tmp_path, fmt):
    # A line pasted from an old file: one bad byte must not turn every ü of the rest into Ã¼.
    path = tmp_path / f"dpkg.{fmt}"
    path.write_bytes(
        "Paket, Beschreibung\ndpkg, Paketverwalter für Debian\napt, Werkzeug für Pakete\n".encode()
        + "Grüße aus der alten Datei, ok\n".encode("latin-1")
        + "dselect, Oberfläche für dpkg\n".encode()
    )
    text = "\n".join(chunk.text for chunk in pieces(isolated(path, fmt)))
    assert "Paketverwalter für Debian" in text and "Oberfläche für dpkg" in text
    assert "Grüße aus der alten Datei" in text and "Ã" not in text


@pytest.mark.parametrize(
    ("declared", "encoding", "words"),
    [
        ('<meta charset="windows-1251">', "cp1251", "man — это пейджер справочных страниц"),
        (
            '<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-2">',
            "iso-8859-2",
            "Poniższa tabela pokazuje numery sekcji wraz z opisem",
        ),
        ('<meta charset="iso-8859-1">', "cp1252", "Grüße aus München – „Anführung“"),
        # An editor's default label on a page saved as UTF-8: valid UTF-8 is UTF-8.
        ('<meta charset="iso-8859-1">', "utf-8", "Grüße aus München – „Anführung“"),
    ],
)
def test_html_is_read_in_the_charset_it_declares(tmp_path, declared, encoding, words):
    path = tmp_path / "page.html"
    page = f"<html><head>{declared}<title>man</title></head><body><article><h1>man</h1>"
    page += f"<p>{words}. {words}, {words}.</p></article></body></html>"
    path.write_bytes(page.encode(encoding))
    assert words in pieces(isolated(path, "html"))[0].text


def test_html_keeps_the_article_not_the_navigation(tmp_path):
    text = pieces(isolated(files.html_file(tmp_path / "page.html"), "html"))[0].text
    assert "active site" in text
    assert "Copyright footer" not in text


# --- Hostile and broken files -----------------------------------------------------------------


def test_an_encrypted_pdf_fails_with_a_reason(tmp_path):
    with pytest.raises(ExtractionError, match="password"):
        isolated(files.encrypted_pdf(tmp_path / "locked.pdf"), "pdf")


def test_a_corrupt_pdf_fails_with_a_reason(tmp_path):
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> garbage \x00\x01")
    with pytest.raises(ExtractionError, match="PDF"):
        isolated(path, "pdf")


def test_a_readers_error_names_the_file_as_its_owner_knows_it_not_where_it_is_stored(tmp_path):
    path = tmp_path / "3f9c2a.pdf"
    path.write_bytes(b"%PDF-1.4 and then nothing a reader can use")
    with pytest.raises(ExtractionError) as refused:
        isolated(path, "pdf", name="Zellbiologie.pdf")
    assert str(tmp_path) not in str(refused.value)
    assert "'Zellbiologie.pdf'" in str(refused.value)


def test_a_pdf_with_cyclic_references_fails_or_reads_without_hanging(tmp_path):
    path = tmp_path / "cycle.pdf"
    path.write_bytes(
        b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
        b"2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n"
        b"3 0 obj << /Type /Pages /Kids [2 0 R] /Count 1 /Parent 2 0 R >> endobj\n"
        b"trailer << /Root 1 0 R /Size 4 >>\n%%EOF"
    )
    with pytest.raises(ExtractionError):
        isolated(path, "pdf", timeout=30)


def test_a_page_too_large_to_render_is_an_error_not_a_memory_bomb(tmp_path):
    document = pymupdf.open()
    document.new_page(width=14000, height=14000)  # empty: it would go to OCR
    document.save(tmp_path / "huge.pdf")
    with pytest.raises(ExtractionError, match="too large"):
        isolated(tmp_path / "huge.pdf", "pdf")


OFFICE_FILES = {"docx": files.docx_file, "pptx": files.pptx_file, "xlsx": files.xlsx_file}


@pytest.mark.parametrize("fmt", ["docx", "pptx", "xlsx"])
def test_office_zip_bombs_are_refused(tmp_path, fmt):
    real = OFFICE_FILES[fmt]
    source = real(tmp_path / f"source.{fmt}")
    bomb = tmp_path / f"bomb.{fmt}"
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(bomb, "w") as out:
        for entry in original.infolist():
            out.writestr(entry, original.read(entry), zipfile.ZIP_DEFLATED)
        out.writestr(
            "customXml/padding.xml",
            b"<a>" + b" " * (8 * 1024 * 1024) + b"</a>",
            zipfile.ZIP_DEFLATED,
        )
    with pytest.raises(ExtractionError, match="zip bomb"):
        isolated(bomb, fmt)


@pytest.mark.parametrize("fmt", ["docx", "pptx", "xlsx"])
def test_office_xml_with_a_dtd_is_refused(tmp_path, fmt):
    real = OFFICE_FILES[fmt]
    source = real(tmp_path / f"source.{fmt}")
    laughs = (
        b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        b'<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><lolz>&lol2;</lolz>'
    )
    evil = tmp_path / f"evil.{fmt}"
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(evil, "w") as out:
        for entry in original.infolist():
            data = original.read(entry)
            if entry.filename == "[Content_Types].xml":
                data = laughs
            out.writestr(entry, data)
    with pytest.raises(ExtractionError, match="DTD"):
        isolated(evil, fmt)


@pytest.mark.parametrize("fmt", ["docx", "pptx", "xlsx"])
def test_truncated_office_files_fail_with_a_reason(tmp_path, fmt):
    real = OFFICE_FILES[fmt]
    path = real(tmp_path / f"whole.{fmt}")
    broken = tmp_path / f"broken.{fmt}"
    broken.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(ExtractionError):
        isolated(broken, fmt)


def test_a_csv_with_a_giant_field_fails_with_a_reason(tmp_path):
    path = tmp_path / "giant.csv"
    path.write_text('a,b\n"' + "x" * 300_000 + '",1\n')
    with pytest.raises(ExtractionError, match="CSV"):
        isolated(path, "csv")


def test_binary_content_posing_as_text_fails(tmp_path):
    path = tmp_path / "binary.txt"
    path.write_bytes(b"\x00\x01\x02" * 100)
    with pytest.raises(ExtractionError, match="binary"):
        extract(path, "txt")


def test_html_without_readable_text_fails_with_a_reason(tmp_path):
    path = tmp_path / "empty.html"
    path.write_text("<html><body><script>x()</script></body></html>")
    with pytest.raises(ExtractionError, match="readable"):
        isolated(path, "html")


def test_a_file_that_takes_too_long_is_stopped(tmp_path):
    """Many scanned pages against a 1-second limit: the child is killed, the worker goes on."""
    source = files.scanned_page_pdf(tmp_path / "one.pdf", text_pages=0)
    slow = pymupdf.open()
    for _ in range(30):
        slow.insert_pdf(pymupdf.open(source))
    slow.save(tmp_path / "slow.pdf")
    with pytest.raises(ExtractionError, match="longer than 1 s"):
        isolated(tmp_path / "slow.pdf", "pdf", timeout=1)


def test_a_file_that_needs_too_much_memory_fails_with_a_reason(tmp_path):
    path = tmp_path / "big.txt"
    path.write_bytes(b"word " * (40 * 1024 * 1024))  # 200 MB of text against a 150 MB limit
    with pytest.raises(ExtractionError):
        isolated(path, "txt", memory_mb=150)
