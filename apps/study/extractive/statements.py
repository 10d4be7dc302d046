"""False statements for true/false questions, made by one real change to a sentence of the
documents: a word swapped for its antonym ("larger" → "smaller", "vor" → "nach"), or a fact
swapped for another of the same kind from the same document (an option for an option, a
constant for a constant, a number for a number with the same unit). Nothing else is reworded,
so the statement is false for the one reason a student can find in the passage."""

import re

from apps.vault.blanks import determiner, distractors
from apps.vault.cloze import Cloze
from apps.vault.keyterms import Kind, Vocabulary
from apps.vault.sentences import fold

PAIRS = """
larger smaller | bigger smaller | higher lower | faster slower | longer shorter |
greater smaller | increase decrease | increases decreases | increased decreased |
maximum minimum | before after | always never | first last | earlier later | older newer |
oldest newest | enabled disabled | enable disable | possible impossible | valid invalid |
correct incorrect | correctly incorrectly | safe unsafe | upper lower | above below |
größer kleiner | größere kleinere | größeren kleineren | schneller langsamer |
höher niedriger | höhere niedrigere | vor nach | immer nie | neuere ältere |
neueren älteren | neuste älteste | neusten ältesten | aktiviert deaktiviert |
aktivieren deaktivieren | installieren entfernen |
automatisch manuell | erste letzte | ersten letzten | zuerst zuletzt | gültig ungültig |
gültige ungültige | möglich unmöglich | richtig falsch | korrekt inkorrekt | sicher unsicher |
vorher nachher | maximal minimal | maximale minimale
"""
# Each way round, except where a word has a second sense ("nach" is also "to", "after" and
# "according to"; "lower" also a verb): then only from the first word to the second.
ONE_WAY = frozenset(("vor", "upper", "above"))
ANTONYMS: dict[str, str] = {}
for pair in PAIRS.split("|"):
    first, second = pair.split()
    ANTONYMS[first] = second
    if first not in ONE_WAY:
        ANTONYMS.setdefault(second, first)
# Where the word means something else: "vor allem" (above all), "first of all", "at last".
IDIOMS = re.compile(r"vor (?:allem|kurzem|Ort)\b|first of all\b|at (?:first|last)\b", re.IGNORECASE)
# Facts a swap may change: exact names of things, not everyday nouns that might fit as well.
SWAPPED_KINDS = (Kind.IDENTIFIER, Kind.NUMBER)


def false_statement(cloze_terms: list, cloze_of, vocabulary: Vocabulary, near) -> str | None:
    """The sentence made false by one antonym or one swapped fact, or None when neither is
    safe. `cloze_terms` are the sentence's askable (term, occurrence) pairs and `cloze_of`
    makes a Cloze of one of them."""
    sentence = cloze_of(*cloze_terms[0]).text
    flipped = _antonym(sentence)
    if flipped:
        return flipped
    for term, occurrence in cloze_terms:
        if term.kind not in SWAPPED_KINDS:
            continue
        cloze: Cloze = cloze_of(term, occurrence)
        before = determiner(cloze.chunk_text[cloze.sentence.start : occurrence.start])
        others = distractors(vocabulary, term, avoid=sentence, prefer=near, before=before)
        if others:
            return cloze.replaced(others[0].surface)
    return None


def _idiom(sentence: str, match: re.Match) -> bool:
    return IDIOMS.search(sentence[max(0, match.start() - 3) : match.end() + 7]) is not None


def _antonym(sentence: str) -> str | None:
    """The sentence with its first word that has an antonym swapped for it, when the antonym
    is not in the sentence already ("compression or decompression" stays as it is)."""
    words = {fold(word) for word in re.findall(r"\w+", sentence)}
    for match in re.finditer(r"\w+", sentence):
        word = match.group()
        other = ANTONYMS.get(word.casefold())
        if other is None or fold(other) in words or _idiom(sentence, match):
            continue
        if word[:1].isupper():
            other = other[:1].upper() + other[1:]
        flat = sentence[: match.start()] + other + sentence[match.end() :]
        return " ".join(flat.split())
    return None
