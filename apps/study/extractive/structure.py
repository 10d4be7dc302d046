"""Each document's own structure — PDF outline, Markdown/DOCX/HTML headings, slide titles,
sheet names — as sections that cite their chunks; mindmaps and workshop outlines are drawn
from it. A document without any gets its key terms grouped by the pages (or parts) they are
on. Titles are the documents' own words; the only labels we add say where ("Pages 3–5")."""

from dataclasses import dataclass, field
from html.parser import HTMLParser

from apps.vault.keyterms import Kind, Term, Vocabulary, same_family
from apps.vault.models import Chunk, Document
from apps.vault.sentences import fold, sentences

# The limits clean_tree enforces on every mindmap (the root is level 1).
MAX_LEVELS = 4
MAX_CHILDREN = 8
TERMS_PER_SECTION = 3
NOTE_CHARS = 200
FALLBACK_GROUPS = 6


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
    """The document's top-level sections, each with its subsections and chunks."""
    if not rows:
        return []
    headings: list[tuple[int, str, int]] = []  # (level, title, row index where it starts)
    if document.format == "pdf":
        headings = _pdf_headings(document, rows)
    elif document.format == "html":
        headings = _html_headings(document, rows)
    if headings:
        return _tree(headings, rows)
    if any(row.section for row in rows):
        return _tree(_section_headings(rows), rows)
    return []


def _tree(headings: list[tuple[int, str, int]], rows: list[Row]) -> list[Section]:
    """Sections from (level, title, first row) in reading order; rows before the first
    heading belong to the first section."""
    top: list[Section] = []
    stack: list[tuple[int, Section]] = []
    starts = [start for _, _, start in headings] + [len(rows)]
    for number, (level, title, start) in enumerate(headings):
        own = [row.chunk_id for row in rows[start : starts[number + 1]]]
        if number == 0:
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
    headings = []
    for level, title, page in toc:
        title = " ".join(str(title).split())
        index = next((i for i, row in enumerate(rows) if (row.page or 0) >= page), None)
        if title and index is not None:
            headings.append((level, title, index))
    return headings


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


def by_position(rows: list[Row], name: str) -> list[Section]:
    """No structure: the document in up to six parts, by page where it has pages (a short
    one is a single part under its own name)."""
    size = max(1, -(-len(rows) // FALLBACK_GROUPS))
    if len(rows) <= FALLBACK_GROUPS:
        size = len(rows)
    sections = []
    for start in range(0, len(rows), size):
        part = rows[start : start + size]
        pages = [row.page for row in part if row.page]
        if pages and min(pages) != max(pages):
            title = f"Pages {min(pages)}–{max(pages)}"
        elif pages:
            title = f"Page {pages[0]}"
        else:
            title = f"Part {start // size + 1}"
        if size == len(rows):
            title = name
        sections.append(
            Section(title, part[0].chunk_id, [row.chunk_id for row in part], labelled=True)
        )
    return sections


# --- Mindmap trees --------------------------------------------------------------------------------


def note_for(text: str) -> str:
    """The first sentence of a chunk's own text, shortened: what a node says about itself."""
    spans = sentences(text)
    if not spans:
        return ""
    first = " ".join(text[spans[0].start : spans[0].end].split())
    return first if len(first) <= NOTE_CHARS else first[: NOTE_CHARS - 1].rstrip() + "…"


def mindmap(title: str, documents: list[tuple[Document, list[Row]]]) -> dict:
    """A topic tree: the documents (when there are several), their sections, and under each
    section without subsections its key terms. Every node cites a chunk (`source`)."""
    texts = {row.chunk_id: row.text for _, rows in documents for row in rows}
    terms = _Terms(Vocabulary(texts))
    nodes = []
    for document, rows in documents:
        sections = outline(document, rows) or by_position(rows, document.filename)
        depth = 2 if len(documents) == 1 else 3
        if len(sections) == 1 and sections[0].labelled:  # one part: its terms, no level
            children = terms.nodes(sections[0].chunk_ids, document.filename, [])
        else:
            children = _nodes(sections, depth, terms, texts)
        if len(documents) == 1:
            nodes = children
            break
        node = {"title": document.filename, "source": rows[0].chunk_id, "children": children}
        nodes.append(node)
    # The root cites where the material begins: the first document's first chunk.
    root = {"title": title, "source": documents[0][1][0].chunk_id, "children": []}
    _attach(root, nodes)
    return root


def _attach(parent: dict, nodes: list[dict]) -> None:
    """At most MAX_CHILDREN children, the ones with the most under them, in reading order;
    the parent's note says how many were left out."""
    if len(nodes) > MAX_CHILDREN:
        kept = sorted(range(len(nodes)), key=lambda i: -nodes[i].pop("_size", 0))[:MAX_CHILDREN]
        parent["note"] = f"The {MAX_CHILDREN} largest of {len(nodes)} shown."
        nodes = [nodes[i] for i in sorted(kept)]
    for node in nodes:
        node.pop("_size", None)
    parent["children"] = nodes


def _nodes(sections: list[Section], level: int, terms: "_Terms", texts: dict) -> list[dict]:
    nodes = []
    siblings = [section.all_chunk_ids() for section in sections]
    for section in sections:
        node: dict = {"title": section.title, "source": section.chunk_id, "children": []}
        node["_size"] = len(section.all_chunk_ids())
        note = note_for(texts.get(section.chunk_id, ""))
        if note and note != section.title:
            node["note"] = note
        if level < MAX_LEVELS:
            if section.children:
                _attach(node, _nodes(section.children, level + 1, terms, texts))
            else:
                ids = section.all_chunk_ids()
                node["children"] = terms.nodes(ids, section.title, siblings)
        nodes.append(node)
    return nodes


# English words that qualify or tell (needed, quickly, writable, careful, …) name no topic.
MODIFIER_ENDINGS = ("ed", "ly", "able", "ible", "ful", "ous", "ive", "est")


def _modifier(term: Term) -> bool:
    return term.key.endswith(MODIFIER_ENDINGS) or term.key in ENGLISH_MODIFIERS


def _address(term: Term) -> bool:
    """A path, a web or mail address ("usr/share/doc/apt", "c.leick"): where, not what."""
    if term.key in ("http", "https", "ftp", "www", "mailto"):
        return True
    return "/" in term.key or (term.kind is Kind.IDENTIFIER and "." in term.key)


ENGLISH_MODIFIERS = frozenset(
    ("best", "better", "worse", "worst", "original", "unsigned", "signed")
)


class _Terms:
    """Picks each section's own key terms: those mostly written in it rather than in its
    siblings, never a term another branch of the map already shows, never one that half of
    the siblings use (the document's general words, "data", "files"), and in German text no
    lower-case word (verbs and adjectives there; its nouns are capitalised)."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        self.vocabulary = vocabulary
        self.used: set[str] = set()

    def nodes(self, chunk_ids: list[int], title: str, siblings: list[list[int]]) -> list[dict]:
        inside = set(chunk_ids)
        groups = [set(group) for group in siblings]
        languages = self.vocabulary.languages
        german = sum(languages.get(c) == "de" for c in inside) * 2 > len(inside)
        scored = []
        for term in self.vocabulary.ranked():
            own = inside.intersection(term.chunk_ids)
            if not own or term.key in self.used or term.key in fold(title):
                continue
            if term.kind is Kind.NUMBER or (term.kind is Kind.WORD and (german or _modifier(term))):
                continue
            if _address(term):
                continue
            spread = sum(bool(group.intersection(term.chunk_ids)) for group in groups)
            if len(groups) >= 3 and spread * 2 > len(groups):
                continue
            share = term.weight * len(own) / len(term.chunk_ids)
            rank = (Kind.IDENTIFIER, Kind.NAME, Kind.WORD).index(term.kind)
            scored.append((rank, -share, term.key, term))
        picked: list[Term] = []
        for *_, term in sorted(scored, key=lambda s: s[:3]):
            if len(picked) < TERMS_PER_SECTION and not any(
                same_family(term.surface, other.surface) for other in picked
            ):
                picked.append(term)
        self.used.update(term.key for term in picked)
        return [
            {
                "title": term.surface,
                "source": next(c for c in chunk_ids if c in term.chunk_ids),
                "children": [],
            }
            for term in picked
        ]


# --- Workshop outlines ---------------------------------------------------------------------------


@dataclass
class Part:
    title: str
    chunk_ids: list[int]
    also: list[str] = field(default_factory=list)  # titles of sections merged into it


def lesson_plan(documents: list[tuple[Document, list[Row]]], count: int) -> list[Part]:
    """`count` lessons (fewer when the documents hold fewer chunks) following the documents'
    sections in reading order: sections are split (into subsections, else halves) or
    neighbours merged until the count fits."""
    parts: list[Part] = []
    sections: dict[int, Section] = {}  # the section a part still stands for whole
    for document, rows in documents:
        for section in outline(document, rows) or by_position(rows, document.filename):
            part = Part(section.title, section.all_chunk_ids())
            sections[id(part)] = section
            parts.append(part)
    while len(parts) < count:
        largest = max(range(len(parts)), key=lambda i: len(parts[i].chunk_ids))
        part = parts[largest]
        section = sections.pop(id(part), None)
        if section is not None and len(section.children) > 1:
            first, *rest = section.children
            pieces = [Part(part.title, section.chunk_ids + first.all_chunk_ids())]
            pieces += [Part(child.title, child.all_chunk_ids()) for child in rest]
            for piece, child in zip(pieces, section.children, strict=True):
                sections[id(piece)] = child
        elif len(part.chunk_ids) > 1:
            half = len(part.chunk_ids) // 2
            pieces = [
                Part(part.title, part.chunk_ids[:half], part.also),
                Part(f"{part.title} (continued)", part.chunk_ids[half:]),
            ]
        else:
            break
        parts[largest : largest + 1] = pieces
    while len(parts) > count:
        pair = min(
            range(len(parts) - 1),
            key=lambda i: len(parts[i].chunk_ids) + len(parts[i + 1].chunk_ids),
        )
        first, second = parts[pair], parts[pair + 1]
        merged = Part(
            first.title,
            first.chunk_ids + second.chunk_ids,
            [*first.also, second.title, *second.also],
        )
        parts[pair : pair + 2] = [merged]
    return parts
