"""Mindmaps and workshop outlines drawn from each document's own sections (outline.py), or
for a document without any, from the concepts its chunks share (clusters.py). Branch titles
are the documents' headings or key terms; a section without subsections shows its own key
terms."""

import re
from dataclasses import dataclass, field

from apps.study.extractive.clusters import clusters
from apps.study.extractive.outline import Row, Section, outline
from apps.study.sources import title_of
from apps.vault import blanks
from apps.vault.keyterms import Kind, Term, Vocabulary, same_family
from apps.vault.models import Document
from apps.vault.sentences import fold, sentences

# The limits clean_tree enforces on every mindmap (the root is level 1).
MAX_LEVELS = 4
MAX_CHILDREN = 8
TERMS_PER_SECTION = 3
NOTE_CHARS = 200


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
        sections = outline(document, rows) or clusters(rows, terms.vocabulary, document.filename)
        depth = 2 if len(documents) == 1 else 3
        if len(sections) == 1 and sections[0].labelled:  # one part: its terms, no level
            children = terms.nodes(sections[0].chunk_ids, document.filename, [])
        else:
            children = _nodes(sections, depth, terms, texts)
        if len(documents) == 1:
            nodes = children
            break
        node = {"title": title_of(document), "source": rows[0].chunk_id, "children": children}
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


def _address(term: Term) -> bool:
    """A path, a web or mail address ("usr/share/doc/apt", "c.leick"): where, not what."""
    if term.key in ("http", "https", "ftp", "www", "mailto"):
        return True
    return "/" in term.key or (term.kind is Kind.IDENTIFIER and "." in term.key)


# A measure ("900k"), a bundle of one-letter flags ("-cdfkqstvzVL123456789") or a word of a
# title in capitals ("SYNOPSIS", "BESCHREIBUNG"): no topic of its own.
MEASURE = re.compile(r"\d+[a-z]{1,2}")
BUNDLE = re.compile(r"-(?=[a-z]*[A-Z0-9])[A-Za-z0-9]{4,}")
FLAG = re.compile(r"-[a-z]")


KINDS = (Kind.IDENTIFIER, Kind.NAME, Kind.WORD)
# English words that qualify or tell (needed, quickly, writable, careful, …) name no topic.
MODIFIER_ENDINGS = ("ed", "ly", "ing", "able", "ible", "ful", "ous", "ive", "est")


def _no_topic(term: Term) -> bool:
    shouted = term.surface.isupper() and term.surface.isalpha() and len(term.surface) > 6
    return shouted or bool(MEASURE.fullmatch(term.key) or BUNDLE.fullmatch(term.surface))


class _Terms:
    """Picks each section's own key terms, identifiers (long options before one-letter
    flags) and names: those mostly written in it rather than in its siblings, never a term
    another branch of the map already shows, never one that half of the siblings use or the
    whole document keeps using ("data", "Pakete"), never a word, a passing mention or a
    figure."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        self.vocabulary = vocabulary
        self.used: set[str] = set()

    def _english_noun(self, term: Term) -> bool:
        english = self.vocabulary.languages.get(term.chunk_ids[0]) != "de"
        return english and not term.key.endswith(MODIFIER_ENDINGS)

    def nodes(self, chunk_ids: list[int], title: str, siblings: list[list[int]]) -> list[dict]:
        inside = set(chunk_ids)
        groups = [set(group) for group in siblings]
        scored = []
        for term in self.vocabulary.ranked():
            own = inside.intersection(term.chunk_ids)
            if not own or term.key in self.used or term.key in fold(title):
                continue
            if term.kind is Kind.NUMBER or _address(term) or _no_topic(term):
                continue
            if blanks.generic(self.vocabulary, term) or not blanks.repeated(self.vocabulary, term):
                continue  # the whole document's word ("data"), or a passing mention ("POSIX")
            if term.kind is Kind.NAME and len(own) * 2 < len(set(term.chunk_ids)):
                continue  # a name written mostly elsewhere ("Debian", "Benutzer")
            spread = sum(bool(group.intersection(term.chunk_ids)) for group in groups)
            if len(groups) >= 3 and spread * 2 > len(groups):
                continue
            share = term.weight * len(own) / len(term.chunk_ids)
            rank = KINDS.index(term.kind), bool(FLAG.fullmatch(term.key))
            scored.append((rank, -share, term.key, term))
        # A plain word only where the section names nothing else and the scope is so small
        # that words are all it has; in German none (its nouns are capitalised, its lower-case
        # words verbs and adjectives).
        words = [row for row in scored if row[3].kind is Kind.WORD]
        scored = [row for row in scored if row[3].kind is not Kind.WORD]
        if not scored and blanks.small(self.vocabulary):
            scored = [row for row in words if self._english_noun(row[3])]
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
        vocabulary = Vocabulary({row.chunk_id: row.text for row in rows})
        for section in outline(document, rows) or clusters(rows, vocabulary, document.filename):
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
                Part(part.title, part.chunk_ids[half:]),
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
        # The larger names the lesson ("BESCHREIBUNG", also: "WARNUNG").
        lead, other = (
            (second, first) if len(second.chunk_ids) > len(first.chunk_ids) else (first, second)
        )
        also = [title for title in (*first.also, other.title, *second.also) if title != lead.title]
        parts[pair : pair + 2] = [Part(lead.title, first.chunk_ids + second.chunk_ids, also)]
    return _numbered(parts)


def _numbered(parts: list[Part]) -> list[Part]:
    """A section split into several lessons: "Optionen", "Optionen (2)", "Optionen (3)"."""
    seen: dict[str, int] = {}
    for part in parts:
        seen[part.title] = seen.get(part.title, 0) + 1
        if seen[part.title] > 1:
            part.title = f"{part.title} ({seen[part.title]})"
    return parts
