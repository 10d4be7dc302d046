"""The sentences of the retrieved passages that answer a question, cut verbatim from them, for
the answers a model too small to write faithfully does not write (docs/chat.md).

A quotable unit (`apps/chat/quotable.py`) scores its cosine to the question in the embedding
model the search already loaded (or to the question heading above it, when that is closer),
plus the share of the question's words it holds, plus what the kind of question asks for: the
term it asks about opening the unit ("What does -k do?": "-k --keep Keep…"), commands for "how
do I", a number for "how many", a name for "who", "ausgesprochen" for "wie spricht man … aus".
The best few are returned in reading order: by document, then by where they stand in it.
"""

import math
import re
from collections import Counter
from dataclasses import dataclass

import numpy as np
from django.db.models import Q

from apps.chat.quotable import Unit, units
from apps.llm import gateway
from apps.vault.models import Chunk
from apps.vault.sentences import STOPWORDS
from apps.vault.tokenize import can_expand, fold, query_terms, tokenize

MAX_SENTENCES = 3
# After the best, a unit is kept only while it scores this share of the best.
KEEP_SHARE = 0.8
# Sentences come from the best few passages only: the fifth to seventh rarely hold the answer
# and double the sentences to embed. Further down, only what opens with the term a question
# asks about ("-l, --lock Sperrt…").
PASSAGES = 4
RANK_WEIGHT = 0.1  # a unit of the n-th passage gets RANK_WEIGHT / n on top of its score
WORDS_WEIGHT = 0.3  # × the idf-weighted share of the question's words the unit holds
KIND_WEIGHT = 0.25  # the unit has what the kind of question asks for
SUBJECT_WEIGHT = 0.3  # the unit opens with the term a "what is / what does" question names

# Question words that say what kind of question it is, not what it is about.
_ASKING = "ob wozu welchen man aus spricht do does mean bedeutet bewirkt macht option flag"
_STOPWORDS = frozenset(fold(word) for word in STOPWORDS) | frozenset(_ASKING.split())
_DEFINITION = re.compile(
    r"^\s*(?:what(?:'s| is| are| does| do)|was (?:ist|sind|macht|bewirkt|bedeutet|tut)"
    r"|wof(?:ü|ue|u)r (?:ist|steht|dient))\s+(?P<subject>.+?)(?:\s+(?:do|mean|stand for))?"
    r"\s*\?*\s*$",
    re.IGNORECASE,
)
# An option ("-k", "--keep") or an identifier with a digit or an underscore ("BZ_DATA_ERROR").
_IDENTIFIER = re.compile(r"(?<![\w-])--?[A-Za-z0-9][\w-]*|\b\w*[_\d]\w*\b")
# What each kind of question asks for, and how a unit that has it reads.
_KINDS = [
    (
        "pronounce",
        re.compile(r"\b(?:pronounc\w*|spricht man|ausgesprochen|aussprache)\b", re.I),
        re.compile(r"\b(?:pronounc\w*|ausgesprochen|aussprache)\b", re.I),
    ),
    (
        "count",
        re.compile(r"^\s*(?:how (?:many|much)|wie ?viele?)\b", re.I),
        re.compile(r"\d"),
    ),
    (
        "when",
        re.compile(r"^\s*(?:when|wann|seit wann|in which year)\b", re.I),
        re.compile(r"\b1[5-9]\d\d\b|\b20\d\d\b"),
    ),
    (
        "who",
        re.compile(r"^\s*(?:who|wer)\b", re.I),
        re.compile(r"\b(?:by|von|durch) [A-ZÄÖÜ][\w-]+ [A-ZÄÖÜ][\w-]+"),
    ),
    (
        "how",
        re.compile(
            r"^\s*(?:how (?:do|can|could|should|would|to)\b|wie (?:kann|k(?:ö|oe)nnen|muss|soll|"
            r"finde|entferne|installiere|zeige|erstelle|l(?:ö|oe)sche|sehe|bekomme)\b)",
            re.I,
        ),
        re.compile(
            r"\b(?:use|run|type|give|giving|specify|verwenden sie|f(?:ü|ue)hren sie|geben sie|"
            r"rufen sie|benutzen sie|installieren sie)\b",
            re.I,
        ),
    ),
]


@dataclass(frozen=True)
class Quote:
    citation: dict  # as the toolbox recorded it: number, chunk_id, filename, page, text…
    start: int  # where the unit starts and ends in the chunk
    end: int
    text: str  # the unit as it stands in the chunk, each run of white space one space
    score: float = 0.0


@dataclass(frozen=True)
class Candidate:
    citation: dict
    unit: Unit


def best_sentences(question: str, citations: list[dict]) -> list[Quote]:
    """The 1–3 units of the best cited chunks that best answer the question, in reading order."""
    subject = subject_of(question)
    found = [
        c
        for c in candidates(citations)
        if c.citation["number"] <= PASSAGES or (subject and opens_with(c.unit.text, subject))
    ]
    if not found:
        return []
    wants = kind_of(question)
    scored = []
    for candidate, meaning, share in zip(
        found, meaning_scores(question, found), words_held(question, found), strict=True
    ):
        unit = candidate.unit
        score = meaning + WORDS_WEIGHT * share + RANK_WEIGHT / candidate.citation["number"]
        if wants and (wants[1].search(unit.text) or (wants[0] == "how" and unit.commands)):
            score += KIND_WEIGHT
        if subject and opens_with(unit.text, subject):
            score += SUBJECT_WEIGHT
        scored.append(Quote(candidate.citation, unit.start, unit.end, unit.text, score))
    ranked = sorted(scored, key=lambda quote: -quote.score)
    kept = [q for q in ranked[:MAX_SENTENCES] if q.score >= KEEP_SHARE * ranked[0].score]
    return reading_order(kept)


def candidates(citations: list[dict]) -> list[Candidate]:
    """Every quotable unit of the cited chunks, each text once."""
    seen: set[str] = set()
    found = []
    before = texts_before([c["chunk_id"] for c in citations])
    for citation in citations:
        for unit in units(citation["text"], before.get(citation["chunk_id"], "")):
            if unit.text.casefold() not in seen:
                seen.add(unit.text.casefold())
                found.append(Candidate(citation, unit))
    return found


def texts_before(chunk_ids: list[int]) -> dict[int, str]:
    """For each chunk, the text of the chunk before it in its document (two queries)."""
    cited = Chunk.objects.filter(pk__in=chunk_ids, ordinal__gt=0)
    wanted = {
        (document, version, ordinal - 1): pk
        for pk, document, version, ordinal in cited.values_list(
            "pk", "document_id", "document_sha256", "ordinal"
        )
    }
    if not wanted:
        return {}
    where = Q()
    for document, version, ordinal in wanted:
        where |= Q(document_id=document, document_sha256=version, ordinal=ordinal)
    rows = Chunk.objects.filter(where).values_list(
        "document_id", "document_sha256", "ordinal", "text"
    )
    return {wanted[(document, version, ordinal)]: text for document, version, ordinal, text in rows}


def reading_order(quotes: list[Quote]) -> list[Quote]:
    """By document (the one with the best unit first), then by position in it."""
    best: dict[int, float] = {}
    for quote in quotes:
        document = quote.citation["document_id"]
        best[document] = max(best.get(document, quote.score), quote.score)
    return sorted(
        quotes,
        key=lambda q: (-best[q.citation["document_id"]], q.citation["chunk_id"], q.start),
    )


def kind_of(question: str) -> tuple[str, re.Pattern] | None:
    """The kind of question and what a unit that answers it has; None for any other kind."""
    for kind, asks, answer in _KINDS:
        if asks.search(question):
            return kind, answer
    return None


def subject_of(question: str) -> list[str]:
    """The terms a "what is X / what does X do" question asks about: its options and
    identifiers ("-k", "BZ_DATA_ERROR") or else its words ("aptitude")."""
    match = _DEFINITION.match(question)
    if not match:
        return []
    subject = match["subject"]
    marked = _IDENTIFIER.findall(subject)
    if marked:
        return marked
    return [t for t in re.findall(r"[\w-]+", subject) if fold(t) not in _STOPWORDS]


def opens_with(text: str, subject: list[str]) -> bool:
    """One of the terms is among the unit's first three words: it defines it ("-k --keep
    Keep…", "-l, --lock Sperrt…", "aptitude ist ein…"). Options keep their case (-s is not -S)."""
    first = [word.strip(",:;") for word in text.split()[:3]]
    folded = {word.casefold() for word in first}
    return any(
        term in first if term.startswith("-") else term.casefold() in folded for term in subject
    )


def content_terms(question: str) -> list[str]:
    return [term for term in query_terms(question) if term not in _STOPWORDS]


def words_held(question: str, found: list[Candidate]) -> list[float]:
    """The idf-weighted share of the question's words each unit (with its heading) holds,
    idf over the units; a word also counts inside a longer compound."""
    terms = content_terms(question)
    if not terms:
        return [0.0] * len(found)
    held = [Counter(tokenize(f"{c.unit.heading} {c.unit.text}")) for c in found]
    present = [[_holds(words, term) for term in terms] for words in held]
    weights = [
        math.log(1 + len(found) / (1 + sum(row[i] for row in present))) for i in range(len(terms))
    ]
    total = sum(weights) or 1.0
    return [sum(w for w, ok in zip(weights, row, strict=True) if ok) / total for row in present]


def _holds(words: Counter, term: str) -> bool:
    if term in words:
        return True
    return can_expand(term) and any(term in word for word in words)


def meaning_scores(question: str, found: list[Candidate]) -> list[float]:
    """Cosine of each unit to the question, or of its question heading when that is closer;
    all 0 when no embedding model answers (the words and the kind then decide)."""
    headings = sorted({c.unit.heading for c in found if c.unit.heading})
    try:
        texts = [c.unit.text for c in found]
        vectors = np.asarray(gateway.embed([question, *texts, *headings]))
    except (gateway.ModelUnavailable, gateway.ModelError):
        return [0.0] * len(found)
    cosines = vectors[1:] @ vectors[0]
    heading_cosine = dict(zip(headings, cosines[len(found) :], strict=True))
    return [
        float(max(cosine, heading_cosine.get(c.unit.heading, -1.0)))
        for c, cosine in zip(found, cosines[: len(found)], strict=True)
    ]
