"""Key terms of a set of chunks, for the study generators that cut their material from the
documents and for the vault's search self-test.

Key terms are weighted as BM25 would weigh them as one-word queries over the chunks given
(k1 1.5, b 0.75), summed over those chunks: a term that is rare in the scope but recurs in a few
chunks ranks first. A term's offsets point into its chunk's text.
"""

import math
import os
import re
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from apps.vault.sentences import (
    ABBREVIATIONS,
    ENGLISH,
    GERMAN,
    STOPWORDS,
    Span,
    body_start,
    fold,
    sentences,
)

K1, B = 1.5, 0.75
# A term in more than this share of the chunks is the vocabulary of the whole scope, not a
# key term of any part of it (checked once there are enough chunks to tell).
MAX_SHARE = 0.5
MIN_CHUNKS_FOR_SHARE = 10
MIN_WORD = 4  # shorter plain words are almost never what a question should ask for

IDENTIFIER = (
    r"(?<![^\s(\[,;/])--?[A-Za-z][\w]*(?:-\w+)*"  # -f, --no-download, --force-remove-reinstreq
    r"|§+\s?\d+[a-z]?"  # §3, § 12a
    r"|\d+(?:-\d+){2,}"  # 978-0-553-41802-6
    r"|/?[A-Za-z][\w]*(?:[._:/][\w]+)+"  # os.replace, v2.1, snake.case, /etc/passwd
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


_SUFFIXES = ("ern", "ien", "ion", "en", "er", "es", "em", "e", "s", "n")


def _stem(term: str) -> str:
    for suffix in _SUFFIXES:
        if term.endswith(suffix) and len(term) - len(suffix) >= 4:
            return term[: -len(suffix)]
    return term


def same_family(a: str, b: str) -> bool:
    """True when one term is the other in another case or inflection (Zelle/Zellen,
    index/Index, Mitochondrion/Mitochondrien), so it cannot serve as a wrong answer."""
    return _same_keys(fold(a), fold(b))


def _same_keys(a: str, b: str) -> bool:
    if a == b or _stem(a) == _stem(b):
        return True
    short, long_ = sorted((a, b), key=len)
    if long_.startswith(short) and len(long_) - len(short) <= 3:
        return True
    common = len(os.path.commonprefix([a, b]))
    return common >= 4 and common >= len(short) - 2


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
            if re.match(r"['’]\w", text[match.end() : match.end() + 2]):
                continue  # "doesn’t", "you’d": half of a contraction
            # Capitalised inside a sentence: a name. At its start it stays a word here; the
            # vocabulary decides by how it is written elsewhere.
            if surface[0].isupper() and not at_start:
                kind = Kind.NAME
            elif _command(surface):
                kind = Kind.IDENTIFIER
        elif kind is Kind.NUMBER and len(surface) == 1:
            continue  # "3" is a list number or a count, not a fact to ask about
        elif surface.isupper() and fold(surface) in STOPWORDS:
            continue  # "FROM" in a heading in capitals
        found.append(Occurrence(fold(surface), surface, kind, match.start(), match.end()))
    return _name_phrases(text, found)


MAX_PHRASE = 4
# "non-root", "well-known": English compounds, not the names of commands or accounts.
COMPOUND_PREFIXES = frozenset(
    """
    non well high low self multi pre re co sub semi anti read write run built long short
    full half all one two three first second user
    """.split()  # noqa: SIM905
)


def _command(surface: str) -> bool:
    """A name in lower case joined by hyphens ("dist-upgrade", "www-data", "base-passwd")."""
    parts = surface.split("-")
    return len(parts) > 1 and surface.islower() and parts[0] not in COMPOUND_PREFIXES


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
        self.texts = texts  # what the wrong answers of a question are read in
        self._buckets: dict[str, list[Term]] | None = None  # terms by their first letters
        self._spreads: dict[str, float] = {}
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
            kind = _kind(kinds[key], surfaces[key])
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

    def ranked(self) -> list[Term]:
        return sorted(self.terms.values(), key=lambda t: (-t.weight, t.key))

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

    def spread(self, term: Term) -> float:
        """The share of the chunks that hold the term or another form of it (same_family); an
        identifier is written one way only."""
        if term.key not in self._spreads:
            if self._buckets is None:
                self._buckets = defaultdict(list)
                for other in self.terms.values():
                    self._buckets[other.key[:4]].append(other)
            chunks = set(term.chunk_ids)
            if term.kind is not Kind.IDENTIFIER:
                for other in self._buckets[term.key[:4]]:
                    if _same_keys(term.key, other.key):
                        chunks.update(other.chunk_ids)
            self._spreads[term.key] = len(chunks) / max(1, len(self.languages))
        return self._spreads[term.key]


def _kind(counts: Counter, surfaces: Counter) -> Kind:
    # "DATA", "MEMORY" in a heading in capitals are the words data and memory, not acronyms.
    shouted = sum(n for surface, n in surfaces.items() if surface.isalpha() and surface.isupper())
    words = counts[Kind.WORD] + counts[Kind.NAME]
    if counts[Kind.IDENTIFIER] > (shouted if words else 0):
        return Kind.IDENTIFIER
    if counts[Kind.NUMBER]:
        return Kind.NUMBER
    # A word written with a capital inside sentences (not just at their start) is a name.
    return Kind.NAME if counts[Kind.NAME] > counts[Kind.WORD] else Kind.WORD


def _surface(counts: Counter, kind: Kind) -> str:
    if kind is Kind.WORD:
        lower = [s for s in counts if not s[0].isupper()]
        if lower:
            return max(lower, key=lambda s: (counts[s], s))
    return max(counts, key=lambda s: (counts[s], s))
