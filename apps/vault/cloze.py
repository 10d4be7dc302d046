"""Cloze sentences: the sentences of a chunk fit to ask about, each with a key term to leave
out, for the study generators' questions and cards and the search self-test's queries."""

from dataclasses import dataclass

from apps.vault.keyterms import Kind, Occurrence, Term, Vocabulary, tokens
from apps.vault.sentences import Span, fold, is_table_row, sentences

# A sentence opening with one of these leans on the one before ("It is…", "Sie erzeugen…").
LEANING = frozenset(
    """
    it its they this these those such he she sie es er diese dieser dies
    """.split()  # noqa: SIM905
)

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
