"""Sentences (English and German) of a chunk, as spans, and the folded form words are compared
in (search's own, apps/vault/tokenize.py): what key terms, cloze sentences and the study
generators cut from a chunk.

Offsets always point into the chunk text, so anything built from a sentence is a verbatim span
of its chunk.
"""

import re
from dataclasses import dataclass

from apps.vault.tokenize import fold

# `[Section: A > B]` / `[Sheet: name]` lines the chunker puts before the text.
BREADCRUMB = re.compile(r"\A\s*\[(?:Section|Sheet): [^\]\n]*\]\s*\n")

ENGLISH = frozenset(
    """
    a about above after again against all also although am an and another any are around as
    at be because been before being below between both but by can could did do does doing
    done down during each either else even ever every few for from further had has have
    having he her here hers herself him himself his how however i if in into is it its
    itself just least less like made make many may me might more most much must my myself
    never no nor not now of off often on once one only or other others our ours out over own
    per rather same shall she should since so some such than that the their theirs them
    themselves then there these they this those though through thus to too under until up
    upon us use used uses using very via was we well were what when where whether which
    while who whom whose why will with within without would yet you your yours example
    examples figure table page note see also first second third new cannot
    """.split()  # noqa: SIM905
)
GERMAN = frozenset(
    """
    aber alle allem allen aller alles als also am an andere anderen anderer anderes auch auf
    aus bei beim bereits bis bisher bzw da dabei dadurch dafür daher damit dann daran darauf
    darin darum darunter das dass davon dazu dem den denen denn der deren derer des deshalb
    dessen die dies diese diesem diesen dieser dieses doch dort durch ebenfalls ein eine
    einem einen einer eines einige einigen einiger einmal er es etwa etwas euch euer für
    gegen gibt hat hatte hatten hier hin hinter ich ihm ihn ihnen ihr ihre ihrem ihren ihrer
    ihres im immer in indem ins ist jede jedem jeden jeder jedes jedoch jetzt kann kein
    keine keinem keinen keiner können könnte man mehr mit muss müssen nach neben nicht noch
    nun nur ob oder ohne seine seinem seinen seiner sehr sein seit sich sie sind so sodass
    solche soll sollen sollte sondern sowie über um und uns unser unter viel viele vom von
    vor wann war waren warum was weil weiter welche welchem welchen welcher welches wenn wer selbst
    werden wie wieder will wir wird wo wurde wurden zu zum zur zwar zwischen seite abbildung
    tabelle beispiel hinweis
    """.split()  # noqa: SIM905
)
STOPWORDS = ENGLISH | GERMAN

# Abbreviations after which a full stop does not end a sentence.
ABBREVIATIONS = frozenset(
    """
    e.g i.e etc vs cf dr prof mr mrs ms st no nr fig figs approx ca inc ltd al z.b d.h u.a
    bzw usw vgl ggf sog bspw abb abs art evtl inkl max min mio mrd s dt
    """.split()  # noqa: SIM905
)


@dataclass(frozen=True)
class Span:
    start: int
    end: int


def body_start(text: str) -> int:
    """Where the chunk's own text begins, after a `[Section: …]` or `[Sheet: …]` line."""
    match = BREADCRUMB.match(text)
    return match.end() if match else 0


_END = re.compile(r"[.!?…]+[\"'»“”)]*(?=\s+[\"'„«(]?[A-ZÄÖÜ0-9§])")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*•–]|\d{1,2}[.)])\s+")


def is_table_row(line: str) -> bool:
    return line.count(" | ") >= 1 or line.strip().startswith("|")


def blocks(text: str) -> list[Span]:
    """Paragraph-like blocks: lines wrapped inside a paragraph stay together; a blank line,
    a heading, a list item or a table row stands alone."""
    spans: list[Span] = []
    start = body_start(text)
    lines = text[start:].splitlines(keepends=True)
    starts = [start]
    for line in lines:
        starts.append(starts[-1] + len(line))
    block_start = None
    block_end = start
    for number, line in enumerate(lines):
        line_start = starts[number]
        stripped = line.strip()
        following = lines[number + 1].strip() if number + 1 < len(lines) else ""
        alone = (
            not stripped
            or is_table_row(stripped)
            or stripped.startswith("#")
            or is_heading(stripped, following)
            or _entry(stripped, following)
        )
        starts_new = bool(_LIST_ITEM.match(line))
        if block_start is not None and (alone or starts_new):
            spans.append(Span(block_start, block_end))
            block_start = None
        if not stripped:
            continue
        if alone:
            spans.append(Span(line_start, line_start + len(line.rstrip())))
            continue
        if block_start is None:
            block_start = line_start
        block_end = line_start + len(line.rstrip())
    if block_start is not None:
        spans.append(Span(block_start, block_end))
    return spans


# "2.5. MEMORY MANAGEMENT", "3.1.1. Low-level summary": a numbered section's title.
NUMBERED = re.compile(r"\d{1,2}(?:\.\d{1,2}){1,4}\.?\s+\S.*|\d{1,2}\.\s+\S.*")


def is_heading(line: str, following: str = "") -> bool:
    """A title on a line of its own: a numbered section's ("2.5. MEMORY MANAGEMENT") or one in
    capitals ("OPTIONEN"), whatever follows; else a short line without closing punctuation
    that is not wrapped on into the next line (which would go on in lower case, or which this
    one would end mid-phrase on "der", "of"…)."""
    if len(line) >= 70 or line.endswith((".", ",", "-", ";", ":", "!")):
        return False
    letters = [ch for ch in line if ch.isalpha()]
    if len(letters) >= 3 and all(ch.isupper() for ch in letters):
        return True
    if NUMBERED.fullmatch(line):
        number, _, title = line.partition(" ")
        title = title.strip()
        return title[:1].isupper() and ("." in number.rstrip(".") or _titled(title))
    if len(line) >= 60 or line.endswith("?") or following[:1].islower():
        return False
    return fold(line.split()[-1]) not in STOPWORDS


def _entry(line: str, following: str) -> bool:
    """A definition list's entry: its name on a line, then a sentence that begins with it
    ("update" / "update wird benutzt, um …")."""
    words = line.split()
    if not words or len(words) > 8 or line.endswith((".", ",", ";", ":", "!", "?")):
        return False
    return following.split(maxsplit=1)[:1] == words[:1] and len(following) > len(line)


def _titled(title: str) -> bool:
    """Capitals on every word but the small ones ("Further Reading", "Introduction")."""
    words = [word for word in title.split() if fold(word) not in STOPWORDS]
    return bool(words) and all(word[:1].isupper() or not word.isalpha() for word in words)


def sentences(text: str) -> list[Span]:
    """Sentence spans of a chunk (leading list markers and spaces left out)."""
    spans: list[Span] = []
    for block in blocks(text):
        start = block.start
        for match in _END.finditer(text, block.start, block.end):
            word = re.search(r"([\w.]+)[.!?…]*$", text[start : match.start() + 1])
            before = word.group(1).rstrip(".").casefold() if word else ""
            if before in ABBREVIATIONS or _is_ordinal(text, start, match):
                continue
            if len(before) == 1 and before.isalpha():  # an initial: "J. Smith"
                continue
            spans.append(trimmed(text, start, match.end()))
            start = match.end()
        spans.append(trimmed(text, start, block.end))
    return [span for span in spans if span.end > span.start]


MONTHS = frozenset(
    """
    januar februar märz april mai juni juli august september oktober november dezember
    """.split()  # noqa: SIM905
)
_ORDINAL_BEFORE = frozenset(
    """
    am ab vom zum bis den dem im seit der die
    """.split()  # noqa: SIM905
)


def _is_ordinal(text: str, start: int, match: re.Match) -> bool:
    """A German ordinal ("am 1. Mai", "im 3. Kapitel") ends no sentence."""
    before = text[start : match.start()].split()
    if not before or not before[-1].isdigit() or len(before[-1]) > 2:
        return False
    after = text[match.end() :].split(maxsplit=1)
    month = bool(after) and after[0].casefold() in MONTHS
    return month or (len(before) > 1 and before[-2].casefold() in _ORDINAL_BEFORE)


def trimmed(text: str, start: int, end: int) -> Span:
    marker = _LIST_ITEM.match(text, start, end)
    if marker:
        start = marker.end()
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return Span(start, end)
