"""Word and PowerPoint files: paragraphs, tables and text boxes under their headings, one unit
per slide. Each file passes the zip guard before its parser sees it."""

import re
from collections.abc import Iterator
from pathlib import Path

from apps.vault.chunking import MIN_CHARS_STRUCTURED, Unit
from apps.vault.readers.common import ExtractionError, Progress, short
from apps.vault.readers.zipguard import check_office_zip


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
            # The title a paragraph of its own: run into the body's first line, a lesson or a
            # card cut from the slide read "Napoleon Napoleon Bonaparte seized power".
            # python-pptx gives a line break inside a paragraph (Shift+Enter) as "\v".
            text = "\n\n".join(filter(None, [title, "\n".join(body).strip()]))
            text = text.replace("\v", "\n")
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
