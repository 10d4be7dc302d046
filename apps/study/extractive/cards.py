"""Flashcards cut from the documents: term → definition from definitional sentences (English
and German), glossary lines and two-column tables, then cloze cards on key sentences. The back
of every card is a verbatim span of the chunk it cites."""

import functools
import re
from collections.abc import Sequence

from apps.study.retrieval import Source
from apps.vault.cloze import BLANK, Cloze, key_sentences
from apps.vault.keyterms import Vocabulary
from apps.vault.sentences import STOPWORDS, Span, fold, is_table_row, sentences

MAX_TERM_WORDS = 6
MIN_DEFINITION = 12
PER_CHUNK = 3

# "X is/are …", "X ist/sind …" and their close kin; the subject may carry an article.
DEFINITION = re.compile(
    r"(?:(?:the|a|an|der|die|das|ein|eine)\s+)?"
    r"(?P<term>[^\s,;:()\[\]][^,;:()\[\]]{0,80}?)\s+"
    r"(?:is|are|means|refers to|denotes|stands for|ist|sind|bedeutet|bezeichnet|beschreibt)"
    r"\s+(?P<definition>\S.*)",
    re.IGNORECASE | re.DOTALL,
)
# "X: …" (or "X – …") on a line of its own: a glossary entry. The colon is followed by a space:
# "http://…" and "Dir::Cache" are one word each.
GLOSSARY = re.compile(
    r"(?P<term>[^:\n–—|]{1,60}?)\s*(?::(?=\s)|\s[–—]\s)\s*(?P<definition>\S[^\n]*)"
)
# Subjects that point elsewhere ("This is …", "Es ist …") and labels that are not terms.
NOT_TERMS = frozenset(
    """
    this that it there these those they he she we you which what here each one who es dies
    das er sie wir hier diese dieser dieses man was wer welche note example warning tip
    source answer question date time see page section sheet hinweis beispiel achtung tipp
    quelle antwort frage datum zeit siehe seite
    """.split()  # noqa: SIM905
)


# "X is not …" says what X is not: no definition.
NEGATIONS = frozenset(("not", "never", "no", "nicht", "kein", "keine", "nie"))
# A pronoun right after the verb is its subject: "Standardmäßig ist sie …" (German puts the
# verb second, after whatever leads), so what came first is no term.
SUBJECTS = frozenset("sie er es wir ihr ich du man it they he she we you".split())  # noqa: SIM905


def cards(sources: Sequence[Source], vocabulary: Vocabulary, *, count: int) -> list[dict]:
    """Up to `count` cards `{front, back, chunk_id, kind}`: definitions first, then clozes."""
    made: list[dict] = []
    fronts: set = set()  # fronts seen, and the answers of cloze cards
    for finder in (_definitions, _clozes):
        for per_chunk in (PER_CHUNK, None):
            for card in _in_turn(
                sources, functools.partial(finder, vocabulary=vocabulary), per_chunk
            ):
                if len(made) == count:
                    return made
                key = " ".join(fold(card["front"]).split())
                answer = (card["kind"], fold(card["back"]))
                if key in fronts or (card["kind"] == "cloze" and answer in fronts):
                    continue
                fronts.update({key, answer})
                made.append(card)
    return made


def _in_turn(sources: Sequence[Source], make, per_chunk: int | None):
    queues = [list(make(source))[:per_chunk] for source in sources]
    while any(queues):
        for queue in queues:
            if queue:
                yield queue.pop(0)


def _card(source: Source, front: str, back: Span, kind: str) -> dict:
    return {
        "front": " ".join(front.split()),
        "back": source.text[back.start : back.end],
        "chunk_id": source.chunk_id,
        "kind": kind,
    }


def _definitions(source: Source, vocabulary: Vocabulary):
    text = source.text
    yield from _table_rows(source)
    for span in sentences(text):
        sentence = text[span.start : span.end]
        if is_table_row(sentence):
            continue
        for pattern in (GLOSSARY, DEFINITION):
            match = pattern.fullmatch(sentence)
            if match and _is_term(match["term"], vocabulary):
                start = span.start + match.start("definition")
                end = span.start + match.end("definition")
                if text[end - 1 : end] == ".":
                    end -= 1
                first = fold(match["definition"].split()[0])
                if end - start >= MIN_DEFINITION and first not in NEGATIONS | SUBJECTS:
                    yield _card(source, match["term"], Span(start, end), "definition")
                break


def _is_term(term: str, vocabulary: Vocabulary) -> bool:
    words = term.split()
    if not words or len(words) > MAX_TERM_WORDS or fold(words[0]) in NOT_TERMS:
        return False
    if words[-1].isdigit() and len(words) > 1:  # "Body of slide 1": a label, not a term
        return False
    if any(ch in term for ch in ".!?=") and not re.search(r"\w\.\w", term):
        return False
    # A subject worth a card names something the scope is about, not "the result".
    return any(fold(word) in vocabulary for word in re.findall(r"[\w§]+", term)) and not all(
        fold(word) in STOPWORDS for word in words
    )


MARKDOWN_RULE = re.compile(r"\|?\s*:?-{3,}:?\s*\|\s*:?-{3,}:?\s*\|?")


def _table_rows(source: Source):
    """Rows of two-column tables ("front | back"); the first row of a table is its header."""
    text = source.text
    offset = 0
    header_seen = False
    for line in text.splitlines(keepends=True):
        start, offset = offset, offset + len(line)
        row = line.rstrip("\r\n")
        if header_seen and MARKDOWN_RULE.fullmatch(row.strip()):  # under a Markdown header
            continue
        cells = [cell for cell in re.finditer(r"[^|]+", row) if cell.group().strip()]
        # "a | b" or "| a | b |"; a pipe at one end only is a synopsis's "install | remove |"
        framed = row.strip().startswith("|") == row.strip().endswith("|")
        two_columns = is_table_row(row.strip()) and framed and len(cells) == 2 and "---" not in row
        if not two_columns:
            header_seen = False
            continue
        if not header_seen:
            header_seen = True
            continue
        front, back = cells
        back_start = start + back.start() + len(back.group()) - len(back.group().lstrip())
        back_end = start + back.end() - (len(back.group()) - len(back.group().rstrip()))
        if back_end > back_start:
            yield _card(source, front.group(), Span(back_start, back_end), "table")


def _clozes(source: Source, vocabulary: Vocabulary):
    """One card per key sentence, leaving out its heaviest term."""
    for span, terms in key_sentences(source.chunk_id, source.text, vocabulary):
        term, occurrence = terms[0]
        cloze = Cloze(source.chunk_id, source.text, span, term, occurrence)
        answer = Span(occurrence.start, occurrence.end)
        yield _card(source, cloze.replaced(BLANK), answer, "cloze")
