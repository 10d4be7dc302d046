"""The keyword tokenizer shared by the BM25 index, the query and the highlighter.

Identifiers stay whole (`§3`, `404b`, `978-0-553-41802-6`, `snake_case`, `v2.1`) and their
parts are indexed beside them; text is lower-cased and German umlauts and ß are folded to
their two-letter spellings, so `Prüfung`, `PRÜFUNG` and `Pruefung` are one term.
"""

import re
import unicodedata

_GERMAN_FOLDS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss", "ẞ": "ss"})

# A word is a run of letters/digits/underscores; words joined by `-`, `.`, `/` or (between
# digits) `,` form one identifier. `§ 3` is written as `§3`; a command-line option keeps its
# dashes (`-k`, `--keep`), so a question about `-k` is not a question about any `k`.
_TOKEN = re.compile(
    r"§\s?\w+(?:[.\-/]\w+)*|(?<![\w-])--?[^\W_]\w*(?:-\w+)*"
    r"|\w+(?:(?:[.\-/]|(?<=\d),(?=\d))\w+)*"
)
_COMBINING = re.compile(r"[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_PARTS = re.compile(r"[^\W_]+")
_SPACE = re.compile(r"\s")

# Pieces of long words let a query word match inside a German compound (see `expansions`).
MIN_PIECE = 4


def fold(text: str) -> str:
    """Lower-case, fold umlauts and ß, drop other accents (é → e), normalise width."""
    if text.isascii():
        return text.lower()
    text = unicodedata.normalize("NFKC", text).lower().translate(_GERMAN_FOLDS)
    if text.isascii():
        return text
    return _COMBINING.sub("", unicodedata.normalize("NFKD", text))


def tokenize(text: str) -> list[str]:
    """Terms in order: each identifier whole, then its parts when it has several."""
    terms: list[str] = []
    append = terms.append
    for token in _TOKEN.findall(fold(text)):
        # Most tokens are plain words: one run of letters/digits (what `\w` means without `_`)
        # is its own only part.
        if token.isalnum():
            append(token)
        else:
            terms.extend(_identifier_terms(token))
    return terms


def _identifier_terms(token: str) -> list[str]:
    """An identifier without its spaces (`§ 3` is `§3`), then its parts when it has several."""
    token = _SPACE.sub("", token)
    parts = _PARTS.findall(token)
    if len(parts) > 1 or (parts and parts[0] != token):
        return [token, *(part for part in parts if part != token)]
    return [token]


def query_terms(text: str) -> list[str]:
    """A query's distinct terms, in order."""
    return list(dict.fromkeys(tokenize(text)))


def can_expand(term: str) -> bool:
    """Words long enough to look for inside compounds (`pruefung` in `pruefungsordnung`)."""
    return len(term) >= MIN_PIECE + 1 and term.isalpha()


def highlight(
    text: str, query: str, common: frozenset[str] = frozenset()
) -> list[tuple[str, bool]]:
    """The text cut into (piece, matches the query) parts, for <mark> in a template. Words of
    `common` ("which", "the") are marked only when the query has nothing else."""
    wanted = set(query_terms(query))
    wanted = (wanted - common) or wanted
    wider = [term for term in wanted if can_expand(term)]
    parts: list[tuple[str, bool]] = []
    position = 0
    for match in _TOKEN.finditer(text):  # in the text as it is, so the pieces are its own
        start, end = match.span()
        terms = tokenize(text[start:end])
        if any(
            term in wanted or any(term.startswith(w) or term.endswith(w) for w in wider)
            for term in terms
        ):
            if start > position:
                parts.append((text[position:start], False))
            parts.append((text[start:end], True))
            position = end
    if position < len(text):
        parts.append((text[position:], False))
    return parts
