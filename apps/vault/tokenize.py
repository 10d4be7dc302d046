"""The keyword tokenizer shared by the BM25 index, the query and the highlighter.

Identifiers stay whole (`§3`, `404b`, `978-0-553-41802-6`, `snake_case`, `v2.1`) and their
parts are indexed beside them; text is lower-cased and German umlauts and ß are folded to
their two-letter spellings, so `Prüfung`, `PRÜFUNG` and `Pruefung` are one term.
"""

import re
import unicodedata
from collections.abc import Iterator

_GERMAN_FOLDS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "ẞ": "ss"})

# A word is a run of letters/digits/underscores; words joined by `-`, `.`, `/` or (between
# digits) `,` form one identifier. `§ 3` is written as `§3`.
_TOKEN = re.compile(r"§\s?\w+(?:[.\-/]\w+)*|\w+(?:(?:[.\-/]|(?<=\d),(?=\d))\w+)*")
_PARTS = re.compile(r"[^\W_]+")

# Pieces of long words let a query word match inside a German compound (see `expansions`).
MIN_PIECE = 4


def fold(text: str) -> str:
    """Lower-case, fold umlauts and ß, drop other accents (é → e), normalise width."""
    text = unicodedata.normalize("NFKC", text).lower().translate(_GERMAN_FOLDS)
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def spans(text: str) -> Iterator[tuple[int, int]]:
    """Start and end of each token in the original text, for highlighting."""
    for match in _TOKEN.finditer(text):
        yield match.start(), match.end()


def tokenize(text: str) -> list[str]:
    """Terms in order: each identifier whole, then its parts when it has several."""
    terms: list[str] = []
    for match in _TOKEN.finditer(fold(text)):
        token = re.sub(r"\s", "", match.group())
        terms.append(token)
        parts = _PARTS.findall(token)
        if len(parts) > 1 or (parts and parts[0] != token):
            terms.extend(part for part in parts if part != token)
    return terms


def query_terms(text: str) -> list[str]:
    """A query's distinct terms, in order."""
    return list(dict.fromkeys(tokenize(text)))


def can_expand(term: str) -> bool:
    """Words long enough to look for inside compounds (`pruefung` in `pruefungsordnung`)."""
    return len(term) >= MIN_PIECE + 1 and term.isalpha()
