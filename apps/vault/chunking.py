"""Turning extracted units into chunks: a recursive splitter (1000 characters, 100 overlap) and
the row batches of spreadsheets; and the sentence windows the index embeds besides each chunk.
Pure Python, no Django: the extraction child imports it too."""

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

CHUNK_SIZE = 1000
CHUNK_OVERLAP = 100
MIN_CHARS = 100  # shorter fragments of prose say too little to be found
MIN_CHARS_STRUCTURED = 20  # a slide, a row batch or a Markdown section is meaningful when short
ROWS_PER_CHUNK = 20
SEPARATORS = ("\n\n", "\n", ". ", " ", "")


@dataclass
class Unit:
    """A piece of a document with its place: the page/slide number and the sheet/section path.

    `prefix` is repeated at the start of every chunk cut from the unit (a Markdown breadcrumb);
    `split=False` keeps the unit as one chunk (a slide, a header plus 20 rows).
    """

    text: str
    page: int | None = None
    section: str = ""
    prefix: str = ""
    split: bool = True
    min_chars: int = MIN_CHARS


@dataclass
class Piece:
    text: str
    page: int | None = None
    section: str = ""


def split_text(
    text: str, size: int = CHUNK_SIZE, overlap: int = CHUNK_OVERLAP, separators=SEPARATORS
) -> list[str]:
    """Cut at the coarsest separator that gives pieces of at most `size` characters, then
    merge neighbouring pieces up to `size`, carrying about `overlap` characters forward."""
    text = text.strip()
    if not text:
        return []
    if len(text) <= size:
        return [text]
    separator, finer = separators[-1], ()
    for index, candidate in enumerate(separators):
        if candidate == "" or candidate in text:
            separator, finer = candidate, separators[index + 1 :]
            break
    parts = list(text) if separator == "" else _keep_separator(text.split(separator), separator)
    small: list[str] = []
    for part in parts:
        if len(part) <= size:
            small.append(part)
        else:
            small.extend(split_text(part, size, overlap, finer or ("",)))
    return _merge(small, size, overlap)


def _keep_separator(parts: list[str], separator: str) -> list[str]:
    """Sentences keep their full stop; paragraph and line breaks stay where they were."""
    return [part + separator for part in parts[:-1]] + [parts[-1]]


def _merge(parts: list[str], size: int, overlap: int) -> list[str]:
    chunks: list[str] = []
    current: list[str] = []
    length = 0
    for part in parts:
        if current and length + len(part) > size:
            chunks.append("".join(current).strip())
            # Keep whole trailing parts worth about `overlap` characters as the next start.
            while current and (length > overlap or length + len(part) > size):
                length -= len(current.pop(0))
        current.append(part)
        length += len(part)
    if current:
        chunks.append("".join(current).strip())
    return [chunk for chunk in chunks if chunk]


def pieces_from_units(units: Iterable[Unit]) -> list[Piece]:
    """The chunks of a document in reading order; fragments below their minimum are dropped.
    A document that is all short fragments (a note of a sentence or two) is kept whole, so it
    is found like any other: what little it says is all there is to find."""
    units = list(units)
    pieces = []
    for unit in units:
        if unit.split:
            bodies = split_text(unit.text, CHUNK_SIZE - len(unit.prefix))
        else:
            bodies = [unit.text.strip()]
        pieces += [
            Piece(unit.prefix + body, unit.page, unit.section)
            for body in bodies
            if len(body) >= unit.min_chars
        ]
    if pieces:
        return pieces
    texts = [unit for unit in units if unit.text.strip()]
    whole = "\n\n".join(unit.prefix + unit.text.strip() for unit in texts)
    return [Piece(body, texts[0].page, texts[0].section) for body in split_text(whole, CHUNK_SIZE)]


def row_batches(rows: Sequence[str], *, header: str, prefix: str, section: str) -> Iterator[Unit]:
    """Header plus 20 rows per chunk, so every chunk knows its column names."""
    for start in range(0, len(rows), ROWS_PER_CHUNK):
        batch = rows[start : start + ROWS_PER_CHUNK]
        yield Unit(
            prefix + "\n".join([header, *batch]),
            section=section,
            split=False,
            min_chars=MIN_CHARS_STRUCTURED,
        )


# A sentence ends at . ! or ? before white space, or at a blank line; a single line break
# inside a paragraph is only wrapping (PDF lines, manual pages). Not at a colon: "What: pg(1)"
# and "Konfigurationselement: APT::Get" are one statement each.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n\s*\n")
WINDOW_CHARS = 150  # a window grows by whole sentences until it is at least this long


def sentences(text: str) -> list[str]:
    return [s for s in (" ".join(part.split()) for part in _SENTENCE_END.split(text)) if s]


def windows(text: str, min_chars: int = WINDOW_CHARS) -> list[str]:
    """The chunk cut into runs of whole sentences of at least `min_chars`, side by side: what a
    sentence encoder was trained on, where a whole chunk blurs several ideas into one vector.
    A short option line ("-v, --version") joins its neighbours instead of standing alone."""
    found: list[str] = []
    current: list[str] = []
    length = 0
    for sentence in sentences(text):
        current.append(sentence)
        length += len(sentence) + 1
        if length > min_chars:
            found.append(" ".join(current))
            current, length = [], 0
    if current:
        found.append(" ".join(current))
    return found if len(found) > 1 else []  # one window would repeat the chunk's own vector
