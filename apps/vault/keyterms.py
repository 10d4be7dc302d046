"""Sentences (English and German) and key terms of a set of chunks, for the study generators
that cut their material from the documents and for the vault's search self-test.

Offsets always point into the chunk text, so anything built from a sentence or a term is a
verbatim span of its chunk. Key terms are weighted as BM25 would weigh them as one-word
queries over the chunks given (k1 1.5, b 0.75), summed over those chunks: a term that is
rare in the scope but recurs in a few chunks ranks first.
"""

import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

K1, B = 1.5, 0.75
# A term in more than this share of the chunks is the vocabulary of the whole scope, not a
# key term of any part of it (checked once there are enough chunks to tell).
MAX_SHARE = 0.5
MIN_CHUNKS_FOR_SHARE = 10
MIN_WORD = 4  # shorter plain words are almost never what a question should ask for

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
    examples figure table page note see also first second third new
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
    vor wann war waren warum was weil weiter welche welchem welchen welcher welches wenn wer
    werden wie wieder will wir wird wo wurde wurden zu zum zur zwar zwischen seite abbildung
    tabelle beispiel hinweis
    """.split()  # noqa: SIM905
)
STOPWORDS = ENGLISH | GERMAN
# A sentence opening with one of these leans on the one before ("It is…", "Sie erzeugen…").
LEANING = frozenset(
    """
    it its they this these those such he she sie es er diese dieser dies
    """.split()  # noqa: SIM905
)

# Abbreviations after which a full stop does not end a sentence.
ABBREVIATIONS = frozenset(
    """
    e.g i.e etc vs cf dr prof mr mrs ms st no nr fig figs approx ca inc ltd al z.b d.h u.a
    bzw usw vgl ggf sog bspw abb abs art evtl inkl max min mio mrd s dt
    """.split()  # noqa: SIM905
)

IDENTIFIER = (
    r"§+\s?\d+[a-z]?"  # §3, § 12a
    r"|\d+(?:-\d+){2,}"  # 978-0-553-41802-6
    r"|[A-Za-z][\w]*(?:[._:/][\w]+)+"  # os.replace, v2.1, snake.case
    r"|\w*_\w+"  # BZ_OUTBUFF_FULL, snake_case
    r"|[A-Za-z]+\d[\w]*|\d+[A-Za-z][\w]*"  # BM25, 404B, H2O
    r"|[A-Z]{2,}[a-z]*[A-Z]\w*|[a-z]+[A-Z]\w*|[A-Z]{2,}"  # PyMuPDF, camelCase, RRF
)
NUMBER = r"\d+(?:[.,]\d+)*%?"
TOKEN = re.compile(
    rf"(?P<identifier>{IDENTIFIER})(?![\w§])|(?P<number>{NUMBER})(?![\w])"
    r"|(?P<word>[^\W\d_]+(?:-[^\W\d_]+)*)",
    re.UNICODE,
)


class Kind(StrEnum):
    IDENTIFIER = "identifier"
    NUMBER = "number"
    NAME = "name"
    WORD = "word"


@dataclass(frozen=True)
class Span:
    start: int
    end: int


def body_start(text: str) -> int:
    """Where the chunk's own text begins, after a `[Section: …]` or `[Sheet: …]` line."""
    match = BREADCRUMB.match(text)
    return match.end() if match else 0


# --- Sentences ---------------------------------------------------------------------------------

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
            or _is_heading(stripped, following)
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


def _is_heading(line: str, following: str) -> bool:
    """A short line without closing punctuation, not wrapped on into the next line (which
    would go on in lower case, or which this one would end mid-phrase on "der", "of"…)."""
    if len(line) >= 60 or line.endswith((".", ",", "-", ";", ":", "!", "?")):
        return False
    if following[:1].islower():
        return False
    return fold(line.split()[-1]) not in STOPWORDS


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
            spans.append(_trimmed(text, start, match.end()))
            start = match.end()
        spans.append(_trimmed(text, start, block.end))
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


def _trimmed(text: str, start: int, end: int) -> Span:
    marker = _LIST_ITEM.match(text, start, end)
    if marker:
        start = marker.end()
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return Span(start, end)


# --- Terms -------------------------------------------------------------------------------------


def fold(term: str) -> str:
    """The form terms are compared in: case, umlauts and ß folded, accents dropped."""
    term = term.casefold().replace("ä", "ae").replace("ö", "oe").replace("ü", "ue")
    term = term.replace("ß", "ss")
    return "".join(
        ch for ch in unicodedata.normalize("NFKD", term) if not unicodedata.combining(ch)
    )


_SUFFIXES = ("ern", "ien", "ion", "en", "er", "es", "em", "e", "s", "n")


def _stem(term: str) -> str:
    for suffix in _SUFFIXES:
        if term.endswith(suffix) and len(term) - len(suffix) >= 4:
            return term[: -len(suffix)]
    return term


def same_family(a: str, b: str) -> bool:
    """True when one term is the other in another case or inflection (Zelle/Zellen,
    index/Index, Mitochondrion/Mitochondrien), so it cannot serve as a wrong answer."""
    a, b = fold(a), fold(b)
    if a == b or _stem(a) == _stem(b):
        return True
    short, long_ = sorted((a, b), key=len)
    if long_.startswith(short) and len(long_) - len(short) <= 3:
        return True
    common = len(_common_prefix(a, b))
    return common >= 4 and common >= len(short) - 2


def _common_prefix(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


@dataclass(frozen=True)
class Occurrence:
    term: str  # the folded key
    surface: str  # as written here
    kind: Kind
    start: int
    end: int


def tokens(text: str, span: Span | None = None) -> list[Occurrence]:
    """Candidate terms in `text` (or one span of it), with their kind as written there."""
    start, end = (span.start, span.end) if span else (body_start(text), len(text))
    found = []
    first = True
    for match in TOKEN.finditer(text, start, end):
        surface = match.group()
        kind = Kind(match.lastgroup)
        if fold(surface).rstrip(".") in ABBREVIATIONS:
            continue
        at_start = first
        first = False
        if kind is Kind.WORD:
            key = fold(surface)
            if key in STOPWORDS or len(surface) < MIN_WORD:
                continue
            # Capitalised inside a sentence: a name. At its start it stays a word here; the
            # vocabulary decides by how it is written elsewhere.
            if surface[0].isupper() and not at_start:
                kind = Kind.NAME
        elif kind is Kind.NUMBER and len(surface) == 1:
            continue  # "3" is a list number or a count, not a fact to ask about
        found.append(Occurrence(fold(surface), surface, kind, match.start(), match.end()))
    return _name_phrases(text, found)


MAX_PHRASE = 4


def _name_phrases(text: str, found: list["Occurrence"]) -> list["Occurrence"]:
    """Capitalised words written next to each other are one name ("Reciprocal Rank Fusion")."""
    merged: list[Occurrence] = []
    for occurrence in found:
        last = merged[-1] if merged else None
        capitalised = occurrence.kind is Kind.NAME
        if (
            last is not None
            and capitalised
            and last.kind in (Kind.NAME, Kind.WORD)
            and last.surface[:1].isupper()
            and text[last.end : occurrence.start] == " "
            and len(last.surface.split()) < MAX_PHRASE
        ):
            surface = text[last.start : occurrence.end]
            merged[-1] = Occurrence(fold(surface), surface, Kind.NAME, last.start, occurrence.end)
        else:
            merged.append(occurrence)
    return merged


@dataclass
class Term:
    key: str
    surface: str
    kind: Kind
    weight: float = 0.0
    chunk_ids: list[int] = field(default_factory=list)


def language(text: str) -> str:
    """ "de" or "en", by which language's common words the text uses more."""
    words = [fold(word) for word in re.findall(r"[^\W\d_]+", text[:2000])]
    german = sum(word in GERMAN for word in words)
    english = sum(word in ENGLISH for word in words)
    return "de" if german > english else "en"


class Vocabulary:
    """Key terms of a set of chunks, weighted BM25-style within them."""

    def __init__(self, texts: Mapping[int, str]) -> None:
        self.terms: dict[str, Term] = {}
        self.languages = {chunk_id: language(text) for chunk_id, text in texts.items()}
        if not texts:
            return
        frequencies: dict[int, Counter] = {}
        surfaces: dict[str, Counter] = defaultdict(Counter)
        kinds: dict[str, Counter] = defaultdict(Counter)
        lengths: dict[int, int] = {}
        for chunk_id, text in texts.items():
            counts: Counter = Counter()
            for span in sentences(text):
                for occurrence in tokens(text, span):
                    counts[occurrence.term] += 1
                    surfaces[occurrence.term][occurrence.surface] += 1
                    kinds[occurrence.term][occurrence.kind] += 1
            frequencies[chunk_id] = counts
            lengths[chunk_id] = max(1, sum(counts.values()))
        total = len(texts)
        average = sum(lengths.values()) / total
        document_frequency: Counter = Counter()
        for counts in frequencies.values():
            document_frequency.update(counts.keys())
        for key, df in document_frequency.items():
            if total >= MIN_CHUNKS_FOR_SHARE and df / total > MAX_SHARE:
                continue
            kind = _kind(kinds[key])
            surface = _surface(surfaces[key], kind)
            self.terms[key] = Term(key, surface, kind)
        for chunk_id, counts in frequencies.items():
            norm = K1 * (1 - B + B * lengths[chunk_id] / average)
            for key, tf in counts.items():
                term = self.terms.get(key)
                if term is not None:
                    df = document_frequency[key]
                    idf = math.log(1 + (total - df + 0.5) / (df + 0.5))
                    term.weight += idf * tf * (K1 + 1) / (tf + norm)
                    term.chunk_ids.append(chunk_id)

    def __contains__(self, key: str) -> bool:
        return key in self.terms

    def get(self, key: str) -> Term | None:
        return self.terms.get(key)

    def ranked(self, kind: Kind | None = None) -> list[Term]:
        terms = [t for t in self.terms.values() if kind is None or t.kind is kind]
        return sorted(terms, key=lambda t: (-t.weight, t.key))

    def in_span(self, text: str, span: Span) -> list[tuple[Term, Occurrence]]:
        """The key terms written in this span, heaviest first, each once."""
        seen: set[str] = set()
        found = []
        for occurrence in tokens(text, span):
            term = self.terms.get(occurrence.term)
            if term is None or occurrence.term in seen:
                continue
            seen.add(occurrence.term)
            found.append((term, occurrence))
        found.sort(key=lambda pair: (-pair[0].weight, pair[1].start))
        return found

    def alternatives(
        self, term: Term, *, avoid: str = "", prefer: Iterable[int] = (), limit: int = 3
    ) -> list[Term]:
        """Other key terms of the same kind to offer as wrong answers: never the term itself
        or an inflection of it, nothing already in `avoid`; terms of the same language first,
        then of the chunks in `prefer` (e.g. the same document), then by weight."""
        preferred = set(prefer)
        languages = {self.languages.get(chunk_id) for chunk_id in term.chunk_ids}
        avoid_folded = fold(avoid)
        picked: list[Term] = []
        candidates = sorted(
            (t for t in self.terms.values() if t.kind is term.kind and t.key != term.key),
            key=lambda t: (
                not languages.intersection(self.languages.get(c) for c in t.chunk_ids),
                not preferred.intersection(t.chunk_ids),
                -t.weight,
                t.key,
            ),
        )
        for candidate in candidates:
            if len(picked) == limit:
                break
            if same_family(candidate.surface, term.surface):
                continue
            if re.search(rf"(?<!\w){re.escape(candidate.key)}(?!\w)", avoid_folded):
                continue
            if any(same_family(candidate.surface, other.surface) for other in picked):
                continue
            picked.append(candidate)
        return picked


def _kind(counts: Counter) -> Kind:
    for kind in (Kind.IDENTIFIER, Kind.NUMBER):
        if counts[kind]:
            return kind
    # A word written with a capital inside sentences (not just at their start) is a name.
    return Kind.NAME if counts[Kind.NAME] > counts[Kind.WORD] else Kind.WORD


def _surface(counts: Counter, kind: Kind) -> str:
    if kind is Kind.WORD:
        lower = [s for s in counts if not s[0].isupper()]
        if lower:
            return max(lower, key=lambda s: (counts[s], s))
    return max(counts, key=lambda s: (counts[s], s))


# --- Cloze sentences ---------------------------------------------------------------------------

BLANK = "_____"
# What a question asks for by preference: exact identifiers and names before plain words.
ANSWER_KINDS = (Kind.IDENTIFIER, Kind.NAME, Kind.NUMBER, Kind.WORD)
MIN_WORDS, MAX_WORDS, MAX_SENTENCE = 5, 60, 400


@dataclass(frozen=True)
class Cloze:
    """A sentence of a chunk with one key term to leave out."""

    chunk_id: int
    chunk_text: str
    sentence: Span
    term: Term
    answer: Occurrence  # where the term is written in the sentence

    @property
    def text(self) -> str:
        return self.chunk_text[self.sentence.start : self.sentence.end]

    def replaced(self, replacement: str) -> str:
        """The sentence, on one line, with every writing of the term replaced."""
        parts, last = [], self.sentence.start
        for occurrence in tokens(self.chunk_text, self.sentence):
            if occurrence.term == self.term.key:
                parts += [self.chunk_text[last : occurrence.start], replacement]
                last = occurrence.end
        parts.append(self.chunk_text[last : self.sentence.end])
        return " ".join("".join(parts).split())


def key_sentences(chunk_id: int, text: str, vocabulary: Vocabulary) -> list[tuple[Span, list]]:
    """Sentences fit to ask about (whole sentences of prose, not headings or table rows),
    each with its key terms heaviest first; the heaviest sentences first."""
    found = []
    spans = sentences(text)
    for number, span in enumerate(spans):
        sentence = text[span.start : span.end]
        words = len(sentence.split())
        if not MIN_WORDS <= words <= MAX_WORDS or len(sentence) > MAX_SENTENCE:
            continue
        if _cut_off(sentence, first=number == 0, last=number == len(spans) - 1):
            continue
        if is_table_row(sentence) or sentence.endswith(":"):
            continue
        terms = sorted(
            vocabulary.in_span(text, span), key=lambda pair: ANSWER_KINDS.index(pair[0].kind)
        )
        if terms:
            leaning = fold(sentence.split()[0]) in LEANING
            found.append((leaning, span, terms))
    found.sort(key=lambda row: (row[0], -max(term.weight for term, _ in row[2])))
    return [(span, terms) for _, span, terms in found]


def _cut_off(sentence: str, *, first: bool, last: bool) -> bool:
    """Half a sentence: the splitter cuts at line breaks, and a PDF's or a manual page's lines
    wrap mid-sentence, so a chunk may begin with a word in lower case or end without a full
    stop. (An identifier may begin a sentence: "cells.txt holds…", "apt-get is…".)"""
    word = sentence.split(maxsplit=1)[0]
    if first and word.isalpha() and word.islower():
        return True
    return last and not sentence.rstrip(_CLOSING).endswith(_STOPS)


_CLOSING = "\"'»“”)"
_STOPS = (".", "!", "?", "…")


def clozes(chunk_id: int, text: str, vocabulary: Vocabulary, *, alternatives: int = 0):
    """Cloze candidates of a chunk, heaviest first: per sentence, each key term that has at
    least `alternatives` other terms of its kind to offer as wrong answers."""
    for span, terms in key_sentences(chunk_id, text, vocabulary):
        for term, occurrence in terms:
            if (
                alternatives
                and len(
                    vocabulary.alternatives(
                        term, avoid=text[span.start : span.end], limit=alternatives
                    )
                )
                < alternatives
            ):
                continue
            yield Cloze(chunk_id, text, span, term, occurrence)
