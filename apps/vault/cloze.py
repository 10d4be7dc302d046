"""Cloze sentences: the sentences of a chunk fit to ask about, each with the key terms a
question may leave out, for the study generators' questions and cards and the search
self-test's queries. A sentence fit to ask about is a whole statement of what the document
teaches: not a heading, a contents line, licence or acknowledgement text, a reference or a
date, not half a sentence, not one that leans on the sentence before it."""

import re
from collections import Counter
from dataclasses import dataclass

from apps.vault import blanks, furniture
from apps.vault.keyterms import Kind, Occurrence, Term, Vocabulary, language, tokens
from apps.vault.sentences import (
    STOPWORDS,
    Span,
    body_start,
    fold,
    is_heading,
    is_table_row,
    sentences,
)

# A sentence opening with one of these leans on the one before ("It is…", "Dabei …").
LEANING = frozenset(
    """
    it its they this these those such he she sie es er diese dieser dies dabei dadurch damit
    daher deshalb hierbei hiermit außerdem ausserdem also however therefore thus then
    otherwise andernfalls sonst jeder jede jedes each both beide similarly likewise ähnlich ebenso
    see siehe vgl lesen read refer
    """.split()  # noqa: SIM905
)
LEANING = frozenset(fold(word) for word in LEANING)
# "this parameter", "dieser Befehl", "stattdessen": what it speaks of was named before it.
POINTING = re.compile(
    r"\b(?:such an?|solche[nmrs]?|derartige[nmrs]?|this|these|those|dies|diese[nmrs]?|instead"
    r"|stattdessen)\b",
    re.IGNORECASE,
)
# "… finden Sie unter apt-cache(8)", "see bzip2(1)": a pointer to another page, no fact.
ELSEWHERE = re.compile(
    r"\bfinden sie (?:unter|in)\b|\blesen sie\b|\bsee (?:also )?\w+\(\d\)|\brefer to\b",
    re.IGNORECASE,
)
# "Von der Logik her ähnelt sie …", "In ihnen findet …", "Dabei wird …": a pronoun (or a
# pronominal adverb) early on stands for something named before.
PRONOUN = re.compile(
    r"\b(?:sie|er|es|ihn|ihm|ihnen|it|they|them)\b"
    r"|\b(?:[Dd]abei|[Dd]arin|[Dd]araus|[Dd]avon|[Dd]adurch|[Dd]ort|[Hh]ierbei)\b"
)
# "architecture: Verarbeitet … bad-path: Im PATH …": the entries of a list read as one.
LIST = re.compile(r"(?:^|\s)[\w-]+:\s.*\s[\w-]+:\s", re.DOTALL)
# A prototype or a line of code ("int BZ2_bzCompress ( bz_stream *strm, int action );").
CODE = re.compile(r"\);|[{}]|\w\s\*\w|==|\w\(\s|[a-z_]\([a-z_]|\[\*")
# Two sentences the splitter read as one ("… undamaged ones. bzip2recover is …"): a full
# stop before a word, but not after an abbreviation of single letters ("d.h. wir", "e.g. the").
INNER_END = re.compile(r"(?<!\b\w)(?<!\b[Nn]r)[.!?;]\s+[\w(]")
# What follows a verb that opens a sentence without its subject ("Releases all memory …").
OBJECT_WORDS = frozenset("the a an all any up its this that whether if".split())  # noqa: SIM905

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
    """Sentences fit to ask about, each with the key terms a question may leave out (in the
    order to ask for them: identifiers and names first, heaviest first within a kind); the
    heaviest sentences first."""
    if not furniture.teachable(text):
        return []
    skipped = furniture.matter(text)
    german = vocabulary.languages.get(chunk_id, language(text)) == "de"
    found = []
    spans = sentences(text)
    for number, span in enumerate(spans):
        if any(start <= span.start < end for start, end in skipped):
            continue
        if not statement(text, span, first=number == 0, last=number == len(spans) - 1):
            continue
        if _subjectless(text[span.start : span.end], vocabulary, german):
            continue
        if _leaning(text[span.start : span.end], vocabulary) or _described(text, span):
            continue
        written = Counter(occurrence.term for occurrence in tokens(text, span))
        terms = [
            (term, occurrence)
            for term, occurrence in vocabulary.in_span(text, span)
            if written[term.key] == 1  # a blank the sentence fills elsewhere gives it away
            and blanks.askable(vocabulary, term, occurrence, text, span)
        ]
        terms.sort(key=lambda pair: ANSWER_KINDS.index(pair[0].kind))
        if terms:
            found.append((span, terms))
    found.sort(key=lambda row: -max(term.weight for term, _ in row[1]))
    return found


def statement(text: str, span: Span, *, first: bool = False, last: bool = False) -> bool:
    """A whole sentence that states what the document teaches, standing on its own."""
    sentence = text[span.start : span.end]
    words = sentence.split()
    if not MIN_WORDS <= len(words) <= MAX_WORDS or len(sentence) > MAX_SENTENCE:
        return False
    if not sentence.rstrip(_CLOSING).endswith(_STOPS) or is_table_row(sentence):
        return False
    if _cut_off(text, span, first=first, last=last):
        return False
    if points_back(sentence) or LIST.search(sentence) or ELSEWHERE.search(sentence):
        return False
    if CODE.search(sentence) or INNER_END.search(sentence):
        return False
    lines = [line.strip() for line in sentence.splitlines() if line.strip()]
    if any(furniture.toc_line(line) or furniture.page_number(line) for line in lines):
        return False
    line_start = span.start == 0 or text[span.start - 1] == "\n"
    if line_start and len(lines) > 1 and is_heading(lines[0], lines[1]):
        return False  # a title glued to the sentence below it
    return not (
        furniture.legal(sentence) or furniture.credits(sentence) or furniture.only_a_date(sentence)
    )


def points_back(sentence: str) -> bool:
    """The sentence leans on the one before it: "It …", "Similarly …", "this parameter", "In
    ihnen …" — what it speaks of was named there."""
    words = sentence.split()
    if not words:
        return False
    opening = fold(words[0].strip("(\"'„“»,;:")) in LEANING
    return opening or bool(POINTING.search(sentence) or PRONOUN.search(" ".join(words[:6])))


def _cut_off(text: str, span: Span, *, first: bool, last: bool) -> bool:
    """Half a sentence: the splitter cuts at line breaks, and a PDF's or a manual page's lines
    wrap mid-sentence, so a chunk may begin with a word in lower case (or with a page's
    running head above the rest of a sentence) or end without a full stop. (An identifier may
    begin a sentence: "cells.txt holds…", "apt-get is…".)"""
    sentence = text[span.start : span.end]
    word = sentence.split(maxsplit=1)[0]
    if first and word.isalpha() and word.islower():
        return True
    if word.isalpha() and word.islower() and (fold(word) in STOPWORDS or _inflected(word)):
        return True  # "lockeren Umgebungen …", "than a block.": the rest of a sentence
    if _continued(text, span):
        return True
    if first:
        head, _, rest = sentence.partition("\n")
        if rest[:1].islower() and len(head.split()) <= 6 and not head.endswith(_STOPS):
            return True  # "How to use bzip2" / "than a block.": the page turned mid-sentence
    return last and not sentence.rstrip(_CLOSING).endswith(_STOPS)


# "Der Befehl wird …": a word the document uses this often names a thing said before it.
LEANING_SHARE = 0.15
DEFINITE = frozenset("the der die das den dem des".split())  # noqa: SIM905
# "The only …", "The same …": which one it is was said before.
RELATIVE = frozenset(
    "only same other following above last next first former latter result rest remainder".split()  # noqa: SIM905
)


def _leaning(sentence: str, vocabulary: Vocabulary) -> bool:
    """ "Der Befehl wird …", "The library …", "Der einzige unterstützte Befehl …": a definite
    article before the document's everyday word, or before a word that places it among
    others, opens the sentence, and which one it means was said before."""
    words = re.findall(r"[\w-]+", sentence)[:2]
    if len(words) < 2 or fold(words[0]) not in DEFINITE:
        return False
    if fold(words[1]) in RELATIVE or (fold(words[0]) != "the" and words[1][:1].islower()):
        return True
    if fold(words[0]) == "the" and not words[1][:1].islower():
        return False  # "The Debian package …": a name, not a word pointing back
    term = vocabulary.get(fold(words[1]))
    return term is not None and vocabulary.spread(term) > LEANING_SHARE


def _described(text: str, span: Span) -> bool:
    """The sentence under an entry's name that it does not repeat ("deinstall (deinstalliere)"
    / "Das Paket ist zur Deinstallation ausgewählt."): it describes what it does not name."""
    lines = text[body_start(text) : span.start].rstrip().splitlines()
    label = lines[-1].strip() if lines else ""
    words = label.split()
    if not words or len(words) > 6 or label.endswith((".", "!", "?", ";", ",", ":")):
        return False
    if label[:1].isupper() or label[:1].isdigit():
        return False  # a section's title ("Glossary", "2.5. MEMORY MANAGEMENT") says no name
    name = fold(words[0].strip("-,:()"))
    said = re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", fold(text[span.start : span.end]))
    return bool(name) and said is None


def _continued(text: str, span: Span) -> bool:
    """After a blank line (a scan breaks paragraphs at random), the rest of a sentence whose
    start ends the paragraph above without a full stop ("Conffiles sind" / "Konfigurations-
    dateien, die …"), not a title or an entry's name above its text."""
    above = text[body_start(text) : span.start]
    if not re.search(r"\n\s*\n\s*$", above):
        return False
    lines = [line.strip() for line in above.splitlines() if line.strip()]
    if not lines or lines[-1].endswith((".", "!", "?", ":", ";", "…")):
        return False
    following = text[span.start : span.end].split("\n", 1)[0]
    return not is_heading(lines[-1], following)


def _inflected(word: str) -> bool:
    """A German adjective or verb form ("lockeren", "gesetzten"): no command name."""
    return len(word) > 5 and word.endswith(("en", "em", "er", "es"))


def _subjectless(sentence: str, vocabulary: Vocabulary, german: bool) -> bool:
    """A description that opens with its verb ("Releases all memory …", "Sucht nach
    Paketen …", "Wird von dpkg … gesetzt"): under an entry the reader no longer sees, it
    says nothing on its own."""
    words = re.findall(r"[\w-]+", sentence)
    if len(words) < 2 or not words[0][:1].isupper():
        return False
    first = vocabulary.get(fold(words[0]))
    lower = (first is not None and first.kind is Kind.WORD) or fold(words[0]) in STOPWORDS
    if german:
        return fold(words[0]) in FINITE or (lower and fold(words[0]).endswith("t"))
    return lower and words[0].endswith("s") and fold(words[1]) in OBJECT_WORDS


FINITE = frozenset(
    ("wird", "werden", "ist", "sind", "kann", "koennen", "muss", "sollte", "hat", "haben")
)
_CLOSING = "\"'»“”)"
_STOPS = (".", "!", "…")


def clozes(chunk_id: int, text: str, vocabulary: Vocabulary):
    """Cloze candidates of a chunk, heaviest first: per sentence, each key term it may leave
    out."""
    for span, terms in key_sentences(chunk_id, text, vocabulary):
        for term, occurrence in terms:
            yield Cloze(chunk_id, text, span, term, occurrence)
