"""A lesson cut from the documents: the relevant passages cleaned (breadcrumbs, overlaps and
broken line wraps gone) and in reading order, key terms in bold, each passage with where it
is from, and a short cloze check at the end."""

import dataclasses
import re
from collections.abc import Sequence, Set

from apps.study.extractive import structure
from apps.study.retrieval import Source
from apps.vault import furniture
from apps.vault.cloze import ANSWER_KINDS, BLANK, Cloze, key_sentences
from apps.vault.keyterms import Vocabulary, tokens
from apps.vault.sentences import STOPWORDS, body_start, fold

# Chunks a lesson reads at most: its section's, evenly spaced.
MAX_CHUNKS = 12
MARKED_TERMS = 6
CHECKS = 3
MIN_OVERLAP = 20
_MARKDOWN = re.compile(r"([\\`*_\[\]<>#|~])")


def clean(text: str, heads: Set[str] = frozenset()) -> str:
    """The chunk's own text as paragraphs: wrapped lines joined, hyphenated breaks mended,
    page numbers, contents lines and the page's running head (`heads`) left out."""
    text = text[body_start(text) :]
    text = re.sub(r"(\w)-\n(?=[a-zäöüß])", r"\1", text)
    paragraphs = []
    for block in re.split(r"\n\s*\n", text):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        lines = [line for line in lines if not _furniture(line, heads)]
        joined: list[str] = []
        for line in lines:
            alone = " | " in line or re.match(r"(?:[-*•–]|\d{1,2}[.)])\s", line)
            heading = len(line) < 60 and not line.endswith((".", ",", ";", ":", "-"))
            ended = joined and (joined[-1].endswith((".", ":", "!", "?")) or len(joined[-1]) < 60)
            if joined and not alone and not heading and not ended:
                joined[-1] += " " + line
            else:
                joined.append(line)
        paragraphs.append("\n".join(joined))
    return "\n\n".join(p for p in paragraphs if p)


def _furniture(line: str, heads: Set[str]) -> bool:
    return line in heads or furniture.toc_line(line) or furniture.page_number(line)


def without_overlap(previous: str, text: str) -> str:
    """`text` without the start it shares with the end of the chunk before it."""
    for size in range(min(len(previous), len(text), 400), MIN_OVERLAP - 1, -1):
        if previous.endswith(text[:size]):
            return text[size:].lstrip()
    return text


def escape(text: str) -> str:
    return _MARKDOWN.sub(r"\\\1", text)


def marked(text: str, keys: set[str]) -> str:
    """Escaped Markdown with the first writing of each key term in bold."""
    parts, last, done = [], 0, set()
    for occurrence in tokens(text, None):
        if occurrence.term in keys and occurrence.term not in done:
            done.add(occurrence.term)
            parts += [escape(text[last : occurrence.start]), f"**{escape(occurrence.surface)}**"]
            last = occurrence.end
    parts.append(escape(text[last:]))
    return "".join(parts)


def lesson(sources: Sequence[Source], vocabulary: Vocabulary, heads: Set[str] = frozenset()) -> str:
    """The lesson's Markdown from its chunks, given in reading order; front and back matter
    (furniture.teachable) and the document's running heads (`heads`) left out."""
    sources = [source for source in sources if furniture.teachable(source.text)]
    inside = {source.chunk_id for source in sources}
    terms = [term for term in vocabulary.ranked() if inside.intersection(term.chunk_ids)]
    terms.sort(key=lambda term: ANSWER_KINDS.index(term.kind))  # stable: by weight within
    keys = {term.key for term in terms[:MARKED_TERMS]}
    parts: list[str] = []
    previous = None
    for source in sources:
        text = source.text
        if previous is not None and previous.document_id == source.document_id:
            text = text[: body_start(text)] + without_overlap(
                previous.text, text[body_start(text) :]
            )
        previous = source
        body = clean(text, heads)
        if not body:
            continue
        where = source.filename + (f", page {source.page}" if source.page else "")
        parts += [marked(body, keys), f"*— {escape(where)}*"]
    checks = _checks(sources, vocabulary)
    if checks:
        parts.append("### Check yourself")
        parts.append(
            "\n".join(f"{n}. {escape(c.replaced(BLANK))}" for n, c in enumerate(checks, 1))
        )
        answers = " · ".join(f"{n}. {escape(c.answer.surface)}" for n, c in enumerate(checks, 1))
        parts.append(f"Answers: {answers}")
    return "\n\n".join(parts)


def _checks(sources: Sequence[Source], vocabulary: Vocabulary) -> list[Cloze]:
    """Up to three clozes, each a different answer and sentence: the heaviest sentence of each
    passage first, then the next ones, so a lesson of one or two passages has three too."""
    found = [key_sentences(s.chunk_id, s.text, vocabulary) for s in sources]
    checks: list[Cloze] = []
    answers: set[str] = set()
    for depth in range(max(map(len, found), default=0)):
        for source, sentences in zip(sources, found, strict=True):
            if depth >= len(sentences) or len(checks) == CHECKS:
                continue
            span, terms = sentences[depth]
            term, occurrence = terms[0]
            if term.key not in answers:
                answers.add(term.key)
                checks.append(Cloze(source.chunk_id, source.text, span, term, occurrence))
    return checks


def cut(documents: list[tuple], count: int) -> list[dict]:
    """Up to `count` lessons `{title, also, chunk_ids, content}` following the sections of the
    documents (each `(document, rows)`, see structure.lesson_plan). A section's first chunk is
    read from after its title (the lesson's own), its last up to the next section's title."""
    rows = {row.chunk_id: (document, row) for document, own in documents for row in own}
    vocabulary = Vocabulary({chunk_id: row.text for chunk_id, (_, row) in rows.items()})
    heads = furniture.running_heads(row.text for _, row in rows.values())
    parts = structure.lesson_plan(documents, count)
    made = []
    for number, part in enumerate(parts):
        step = max(1, len(part.chunk_ids) / MAX_CHUNKS)
        chosen = [
            part.chunk_ids[int(i * step)] for i in range(min(MAX_CHUNKS, len(part.chunk_ids)))
        ]
        following = parts[number + 1].title if number + 1 < len(parts) else ""
        sources = [_source(*rows[c]) for c in chosen]
        if sources:
            sources[0] = _trimmed(sources[0], start=part.title)
            if chosen[-1] == part.chunk_ids[-1]:
                sources[-1] = _trimmed(sources[-1], end=following)
        content = lesson(sources, vocabulary, heads)
        made.append(
            {"title": part.title, "also": part.also, "chunk_ids": chosen, "content": content}
        )
    return made


def _source(document, row) -> Source:
    return Source(row.chunk_id, document.pk, document.filename, row.page, row.section, row.text)


def _trimmed(source: Source, *, start: str = "", end: str = "") -> Source:
    """The chunk's text after the line that ends with the title `start` (the lesson shows it as
    its title: kept, "2. Die Zellorganellen" ran into the first sentence as a list item), and
    before the line that ends with `end` (a section's title, "2.5. MEMORY MANAGEMENT"), where it
    holds them."""
    text, body = source.text, body_start(source.text)
    first, last = body, len(text)
    for line in re.finditer(r"[^\n]+", text[body:]):
        stripped = line.group().strip()
        if start and stripped.endswith(start) and first == body:
            first = body + line.end()
        elif end and stripped.endswith(end) and body + line.start() > first:
            last = body + line.start()
            break
    opening = text[body:].split(maxsplit=1)[:1]
    if start and first == body and opening and fold(opening[0]) in STOPWORDS:
        # No title here: the chunk opens mid-sentence; read from the next sentence on.
        stop = re.search(r"[.!?][\"')»“”]*\s+(?=[A-ZÄÖÜ0-9•-])", text[body:last])
        first = body + stop.end() if stop else first
    if (first, last) == (body, len(text)):
        return source
    return dataclasses.replace(source, text=text[:body] + text[first:last])
