"""Each document's own structure as sections that cite their chunks: its PDF outline, its
Markdown, DOCX and HTML headings, slide titles and sheet names, else the titles written in its
text (numbered, "2.5. MEMORY MANAGEMENT", or a manual page's in capitals, "OPTIONEN"); a
document with none of these is grouped by the key terms its chunks share (clusters.py).
Mindmaps and workshop outlines are drawn from it (structure.py)."""

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

from apps.vault import furniture
from apps.vault.models import Chunk, Document
from apps.vault.sentences import NUMBERED, body_start, fold, is_heading

# Titles found in the text count when there are at least this many: one line in capitals is a
# shout, not a structure.
MIN_HEADINGS = 3
MAX_TITLE_WORDS = 8


@dataclass
class Section:
    title: str
    chunk_id: int  # the chunk the section starts in: what its node cites
    chunk_ids: list[int] = field(default_factory=list)  # its own chunks, not its subsections'
    children: list["Section"] = field(default_factory=list)
    labelled: bool = False  # a title we made ("Pages 3–5"), not the document's

    def all_chunk_ids(self) -> list[int]:
        ids = list(self.chunk_ids)
        for child in self.children:
            ids += child.all_chunk_ids()
        return ids


@dataclass(frozen=True)
class Row:
    chunk_id: int
    ordinal: int
    page: int | None
    section: str
    text: str


def rows_of(document: Document) -> list[Row]:
    chunks = Chunk.objects.filter(document=document, document_sha256=document.sha256)
    return [
        Row(*values)
        for values in chunks.order_by("ordinal").values_list(
            "pk", "ordinal", "page", "section", "text"
        )
    ]


def outline(document: Document, rows: list[Row]) -> list[Section]:
    """The document's top-level sections, each with its subsections and chunks: the PDF's
    outline, HTML headings, the chunks' breadcrumbs, else the titles written in the text.
    Sections that teach nothing (contents, references, licence, authors, translators, a manual
    page's NAME line) and chunks of front matter are left out."""
    if not rows:
        return []
    headings: list[tuple[int, str, int]] = []  # (level, title, row index where it starts)
    if document.format == "pdf":
        headings = _pdf_headings(document, rows)
    elif document.format == "html":
        headings = _html_headings(document, rows)
    if not headings and any(row.section for row in rows):
        headings = _section_headings(rows)
    if headings:
        return _kept(_tree(headings, rows), _taught(rows))
    # Titles found in the text: what comes before the first is front matter (a title page).
    return _kept(_tree(text_headings(rows), rows, leading=False), _taught(rows))


def _taught(rows: list[Row]) -> dict[int, str]:
    """The text of each chunk that teaches something (not front or back matter)."""
    return {row.chunk_id: row.text for row in rows if furniture.teachable(row.text)}


def _kept(sections: list[Section], taught: dict[int, str]) -> list[Section]:
    """The sections that teach something, with only their chunks that do."""
    kept = []
    for section in sections:
        if furniture.section_title(section.title) or fold(section.title) in TITLE_LINES:
            continue
        section.children = _kept(section.children, taught)
        section.chunk_ids = [chunk_id for chunk_id in section.chunk_ids if chunk_id in taught]
        ids = section.all_chunk_ids()
        if not ids or furniture.mostly_matter("\n\n".join(taught[i] for i in ids)):
            continue
        if section.chunk_id not in ids:
            section.chunk_id = ids[0]
        kept.append(section)
    return kept


# A manual page's NAME: the title line of the page, no section to learn from.
TITLE_LINES = frozenset(("name", "bezeichnung"))


def _tree(
    headings: list[tuple[int, str, int]], rows: list[Row], leading: bool = True
) -> list[Section]:
    """Sections from (level, title, first row) in reading order; rows before the first
    heading belong to the first section (`leading`) or to none."""
    top: list[Section] = []
    stack: list[tuple[int, Section]] = []
    starts = [start for _, _, start in headings] + [len(rows)]
    for number, (level, title, start) in enumerate(headings):
        end = starts[number + 1]
        if end == start and not (number + 1 < len(headings) and headings[number + 1][0] > level):
            end += 1  # the next section opens in this row too: the row holds the end of this one
        own = [row.chunk_id for row in rows[start:end]]
        if number == 0 and leading:
            own = [row.chunk_id for row in rows[:start]] + own
        section = Section(title, rows[start].chunk_id, own)
        while stack and stack[-1][0] >= level:
            stack.pop()
        (stack[-1][1].children if stack else top).append(section)
        stack.append((level, section))
    return top


def _section_headings(rows: list[Row]) -> list[tuple[int, str, int]]:
    """Breadcrumbs the chunker kept ("A > B" for Markdown and DOCX, the slide title, the
    sheet name): each new path opens its headings where it first appears."""
    headings = []
    previous: list[str] = []
    for index, row in enumerate(rows):
        path = [part.strip() for part in row.section.split(" > ") if part.strip()]
        if not path or path == previous:
            continue
        common = 0
        while common < min(len(path), len(previous)) and path[common] == previous[common]:
            common += 1
        for level in range(common, len(path)):
            headings.append((level + 1, path[level], index))
        previous = path
    return headings


def _pdf_headings(document: Document, rows: list[Row]) -> list[tuple[int, str, int]]:
    # PyMuPDF loads on the first outline read, not at start-up (docs/deployment.md#start-up-time).
    import pymupdf

    try:
        with pymupdf.open(document.path) as pdf:
            toc = pdf.get_toc(simple=True)
    except (OSError, RuntimeError, ValueError):  # gone, unreadable or locked: no outline
        return []
    headings, index = [], 0
    for level, title, page in toc:
        title = " ".join(str(title).split())
        found = _on_page(rows, title, page, index)
        if title and found is not None:
            headings.append((level, title, found))
            index = found
    return headings


def _on_page(rows: list[Row], title: str, page: int, after: int) -> int | None:
    """The row an outline entry of `page` starts in: the first (from row `after` on) of the rows
    that start on that page which holds its title, else the first row to show the page. Two
    sections of one page so start in the rows holding their titles, not both in the page's
    first."""
    first = next((i for i, row in enumerate(rows) if (row.page or 0) >= page), None)
    if first is None:
        return None
    if (rows[first].page or 0) > page and first > after:  # the page lies inside the row before
        first -= 1
    folded = title.casefold()
    for i in range(max(after, first), len(rows)):
        if (rows[i].page or 0) > page:
            break
        if folded in " ".join(rows[i].text.split()).casefold():
            return i
    return max(first, after)


class _Headings(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []
        self.level = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag in ("h1", "h2", "h3"):
            self.level, self.parts = int(tag[1]), []

    def handle_data(self, data: str) -> None:
        if self.level:
            self.parts.append(data)

    def handle_endtag(self, tag: str) -> None:
        if self.level and tag == f"h{self.level}":
            title = " ".join("".join(self.parts).split())
            if title:
                self.found.append((self.level, title))
            self.level = 0


def _html_headings(document: Document, rows: list[Row]) -> list[tuple[int, str, int]]:
    """h1–h3 of the stored page, each placed at the first chunk (from the last heading's on)
    whose text holds it; headings the article text left out are skipped."""
    try:
        markup = document.path.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return []
    parser = _Headings()
    parser.feed(markup)
    headings, index = [], 0
    for level, title in parser.found:
        folded = title.casefold()
        found = next(
            (
                i
                for i in range(index, len(rows))
                if folded in " ".join(rows[i].text.split()).casefold()
            ),
            None,
        )
        if found is not None:
            headings.append((level, title, found))
            index = found
    return headings


def text_headings(rows: list[Row]) -> list[tuple[int, str, int]]:
    """Titles written in the text, as (level, title, row where the section starts): numbered
    ones, their level by their number ("3.1.1." is level 3), or, where there are none, titles
    in capitals (level 1). Never a line of a contents page (dot leaders after it) and never the
    same title twice (chunks overlap); a title on a chunk's last line opens the next chunk."""
    numbered: list[tuple[int, str, int]] = []
    capitals: list[tuple[int, str, int]] = []
    seen: set[str] = set()
    whole = "\n".join(row.text for row in rows)
    for index, row in enumerate(rows):
        lines = _lines(row)
        filled = [n for n, line in enumerate(lines) if line]
        for n in filled:
            line, last = lines[n], n == filled[-1]
            following = next((lines[m] for m in filled if m > n), "")
            if last and index + 1 < len(rows):  # the chunk after it goes on (or repeats it)
                after = [other for other in _lines(rows[index + 1]) if other]
                following = (after[1:] if after[:1] == [line] else after)[:1] or [""]
                following = following[0]
            if furniture.DOT_LEADER.search(line) or furniture.DOT_LEADER.search(following):
                continue
            if len(line.split()) > MAX_TITLE_WORDS or not is_heading(line, following):
                continue
            start = index + 1 if last and index + 1 < len(rows) else index
            number = re.match(r"(\d+(?:\.\d+)*)\.?\s+(.+)", line)
            if number and NUMBERED.fullmatch(line) and number.group(1) not in seen:
                seen.add(number.group(1))
                numbered.append((number.group(1).count(".") + 1, number.group(2), start))
            elif not number and _capitals(line, whole) and fold(line) not in seen:
                seen.add(fold(line))
                capitals.append((1, line, start))
    for found in (numbered, capitals):
        if len(found) >= MIN_HEADINGS:
            return found
    return []


def _lines(row: Row) -> list[str]:
    return [line.strip() for line in row.text[body_start(row.text) :].splitlines()]


def _capitals(line: str, whole: str) -> bool:
    """A title in capitals ("OPTIONEN", "INFORMATIONEN ÜBER PAKETE"), not a name the text
    uses in its sentences too ("PATH", "DPKG_FORCE", "HOME")."""
    if not re.fullmatch(r"[A-ZÄÖÜ][A-ZÄÖÜß -]{2,}", line):
        return False
    if " " in line or len(line) > SHORT_CAPITALS:
        return True
    if len(line) < MIN_CAPITALS or _unspoken(line):  # "HOME", "TMPDIR": a variable's name
        return False
    return not re.search(rf"(?m)^.*[a-zäöü].*(?<![\w$]){re.escape(line)}(?!\w)", whole)


def _unspoken(word: str) -> bool:
    """No word of a language: four consonants in a row ("TMPDIR"; "SCH", "CH", "CK" count as
    one, "BESCHREIBUNG" is a word)."""
    letters = re.sub(r"SCH|CH|CK|TZ|PH|TH", "C", word)
    return re.search(r"[^AEIOUYÄÖÜ]{4}", letters) is not None


SHORT_CAPITALS = 6
MIN_CAPITALS = 5
