"""Plain text, Markdown and HTML, in the encoding they were written in (UTF-8, UTF-16 with a
byte-order mark, Windows-1252, or the charset a page declares); Markdown by section."""

import codecs
import contextlib
import re
from pathlib import Path

from apps.vault.chunking import MIN_CHARS_STRUCTURED, Unit
from apps.vault.readers.common import ExtractionError, Progress


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


HEADING = re.compile(r"^(#{1,3})[ \t]+(.+?)[ \t]*#*[ \t]*$")
FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")
# A one-line paragraph underlined with = (H1) or - (H2); after a list item or a blank line the
# dashes are a thematic break instead.
UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
NOT_A_TITLE = re.compile(r"^(?: {4}|\t|[ \t]*(?:[-*+>|]|\d{1,9}[.)])(?:[ \t]|$))")


def extract_md(path: Path, progress: Progress) -> dict:
    return markdown_units(decode_text(path.read_bytes()), progress, read=plain_markdown)


def markdown_units(markdown: str, progress: Progress, read=str) -> dict:
    """One unit per H1-H3 section (`#` headings or underlined ones), each chunk of it prefixed
    with `[Section: A > B]`; `read` makes a section's text and its heading plain."""
    units: list[Unit] = []
    trail: list[tuple[int, str]] = []  # (level, title) of the headings above
    lines: list[str] = []
    fenced = False

    def flush() -> None:
        text = read("\n".join(lines)).strip()
        lines.clear()
        if not text:
            return
        section = " > ".join(title for _, title in trail)
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

    for line in markdown.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        match = None if fenced else HEADING.match(line)
        if match or underlined(line):
            title = read(match.group(2) if match else lines.pop()).strip()
            level = len(match.group(1)) if match else 1 if line.strip()[0] == "=" else 2
            flush()
            # A heading closes every open one of its level or deeper, whichever levels the
            # file skips ("## Name", "## Options": two sections, not one inside the other).
            while trail and trail[-1][0] >= level:
                trail.pop()
            trail.append((level, title))
            continue
        lines.append(line)
    flush()
    progress({"sections": len(units)})
    return {"units": units, "pages": None}


# Markdown's blocks that stand apart from the one before by a blank line (outside a list).
BLOCKS = (
    "paragraph_open",
    "table_open",
    "bullet_list_open",
    "ordered_list_open",
    "fence",
    "code_block",
    "html_block",
    "heading_open",
)


def plain_markdown(markdown: str) -> str:
    """Markdown as a reader sees it, the text a chunk holds: no emphasis marks, link targets or
    escapes; a table's rows as their cells joined by " | " (no rule row), list items as lines
    of their own ("- ", "1. "), code as written. A study item cut from it then reads "The
    nucleus", not "The **nucleus**"."""
    from markdown_it import MarkdownIt

    lines: list[str] = []
    row: list[str] | None = None
    lists = 0  # lists open around the current token
    marker = ""  # what the next line of a list item starts with: "- ", "1. "
    for token in MarkdownIt("commonmark").enable("table").parse(markdown):
        if token.type in BLOCKS and not lists and lines:
            lines.append("")
        if token.type in ("bullet_list_open", "ordered_list_open"):
            lists += 1
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            lists -= 1
        elif token.type == "list_item_open":
            marker = f"{token.info}{token.markup} " if token.info else "- "
        elif token.type == "tr_open":
            row = []
        elif token.type == "tr_close":
            lines.append(" | ".join(row or []))
            row = None
        elif token.type == "inline" and row is not None:
            row.append(inline_text(token))
        elif token.type == "inline":
            lines.append(marker + inline_text(token))
            marker = ""
        elif token.type in ("fence", "code_block", "html_block"):
            lines.append(token.content.rstrip("\n"))
    return "\n".join(lines)


def inline_text(token) -> str:
    """The words of a line of Markdown: its text, code and inline HTML as written, a picture
    by its description, line breaks kept."""
    parts = []
    for child in token.children or []:
        if child.type in ("text", "code_inline", "html_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif child.type == "image":
            parts.append(child.content)
    return "".join(parts)


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
    """The page's main text without its menus and footers (trafilatura), by section as Markdown
    is: its H1-H3 headings open the sections. Recall is favoured, as a page of a few paragraphs
    under headings (a teacher's own file) otherwise lost its headings."""
    import trafilatura
    from lxml import etree

    html = decode_html(path.read_bytes())
    found = trafilatura.extract(
        html, include_tables=True, include_comments=False, output_format="xml", favor_recall=True
    )
    main = etree.fromstring(found.encode()).find("main") if found else None
    markdown = "\n\n".join(filter(None, map(as_markdown, [] if main is None else main)))
    if not markdown.strip():
        raise ExtractionError("No readable article text was found in this page.")
    return markdown_units(markdown, progress)


def as_markdown(element) -> str:
    """A block of trafilatura's XML (a heading, paragraph, list, table, quote, code) as the
    Markdown lines the sections are read from; no inline marks, which would reach the chunks.
    Text keeps its lines as the page wrote them, as trafilatura's plain text did."""
    for line_break in element.iter("lb"):  # a <br>: what follows it starts a line
        line_break.tail = "\n" + (line_break.tail or "")

    def lines(part) -> str:
        written = "".join(part.itertext()).splitlines()
        return "\n".join(" ".join(line.split()) for line in written if line.strip())

    def words(part) -> str:
        return " ".join("".join(part.itertext()).split())

    if element.tag == "head":
        rend = element.get("rend", "")
        level = int(rend[1]) if re.fullmatch(r"h[1-6]", rend) else 2
        return f"{'#' * level} {words(element)}" if level <= 3 else words(element)
    if element.tag == "list":
        return "\n".join(f"- {lines(item)}" for item in element.iter("item"))
    if element.tag == "table":
        rows = (" | ".join(words(cell) for cell in row.iter("cell")) for row in element.iter("row"))
        return "\n".join(rows)
    return lines(element)
