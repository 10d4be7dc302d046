"""Flashcards cut from the documents: term → definition from definitional sentences (English
and German), glossary lines and two-column tables, then cloze cards on key sentences. The back
of every card is a verbatim span of the chunk it cites."""

import functools
import re
from collections.abc import Sequence

from apps.study.retrieval import Source
from apps.vault import furniture
from apps.vault.cloze import BLANK, Cloze, key_sentences
from apps.vault.keyterms import Vocabulary, language
from apps.vault.sentences import (
    ABBREVIATIONS,
    STOPWORDS,
    Span,
    fold,
    is_table_row,
    sentences,
    trimmed,
)

MAX_TERM_WORDS = 6
MIN_DEFINITION = 12
PER_CHUNK = 3

# "X is/are …", "X ist/sind …" and their close kin; the subject may carry an article.
DEFINITION = re.compile(
    r"(?:(?:the|a|an|der|die|das|ein|eine)\s+)?"
    r"(?P<term>[^\s,;:()\[\]][^,;:()\[\]]{0,80}?)\s+"
    r"(?P<verb>is|are|means|refers to|denotes|stands for|ist|sind|bedeutet|bezeichnet|beschreibt)"
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
    warnung vorsicht caution important wichtig
    quelle antwort frage datum zeit siehe seite if since although because when while unless
    once as for so currently now then also only each every all any both some most many
    wenn da weil obwohl als ob sobald während falls jede jeder jedes alle beide einige viele
    ihnen ihm ihr ihre sein seine nur auch dann in on at by with from to of into under
    im mit bei von zu zum zur für unter über nach aus
    """.split()  # noqa: SIM905
)


# Words that make a subject point into its context ("the first five actions", "the other
# one", "the result"): no card can stand on them.
CONTEXT = frozenset(
    """
    first second third last next previous following above below other same former latter
    this these those its their dies diese dieser dieses diesem diesen resulting given current
    such only result results rest remainder reason problem answer way case thing things
    erste zweite dritte letzte nächste vorige folgende obige andere gleiche solche ergebnis
    """.split()  # noqa: SIM905
)
# A definition names what the term is: it opens with an article ("a set of assumptions",
# "die Kraftwerke der Zelle"); a German one may open with a noun ("Proteine, die …"). "normal
# and not intended …", "handled by …", "set to …" only say something about the term.
ARTICLES = frozenset(
    """
    a an the one any ein eine einer eines einem einen der die das den dem des
    """.split()  # noqa: SIM905
)
MIN_DEFINITION_WORDS = 4
# A back that points elsewhere ("the following", "eine der folgenden") or is a format line.
POINTING = re.compile(
    r"\b(?:follow(?:s|ing)?|below|above|folgende[nmrs]?|unten|oben)\b|\s:\s", re.IGNORECASE
)
# "… denotes that …", "… ist, wie …": a clause, not what the term is; "a bit hazy", "a lot
# faster": an article before a measure, not before a noun.
CLAUSES = frozenset(
    "that dass how wie whether ob what was when wenn which welche if since there falls weil".split()  # noqa: SIM905
)
QUANTITIES = frozenset("bit little lot few bisschen wenig paar".split())  # noqa: SIM905
# Where a definition's sentence ends early: a full stop the sentence splitter read past (the
# next line starts in lower case, "bzip2 is …"), or a colon before a list on the next lines.
SENTENCE_END = re.compile(r"[.!?;](?=\s)|:\s*\n")

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
        # One line, as the front: a PDF's line wraps are no line breaks on a card.
        "back": " ".join(source.text[back.start : back.end].split()),
        "chunk_id": source.chunk_id,
        "kind": kind,
    }


def _definitions(source: Source, vocabulary: Vocabulary):
    text = source.text
    if not furniture.teachable(text):
        return
    yield from _table_rows(source)
    german = vocabulary.languages.get(source.chunk_id, language(text)) == "de"
    skipped = furniture.matter(text)
    for span in (part for whole in sentences(text) for part in _parts(text, whole)):
        sentence = text[span.start : span.end]
        if is_table_row(sentence) or not sentence or _aside(sentence):
            continue
        if any(start <= span.start < end for start, end in skipped):
            continue
        for pattern in (GLOSSARY, DEFINITION):
            match = pattern.fullmatch(sentence)
            term = _subject(match, vocabulary)
            if term:
                back = _definition(text, span, match, german)
                if back:
                    yield _card(source, term, back, "definition")
                break


def _aside(sentence: str) -> bool:
    """Licence, credits, a date, or a sentence that stops mid-way (a scan's stray line
    break): nothing to learn by heart."""
    if not sentence.rstrip(CLOSING).endswith(STOPS):
        return True
    return (
        furniture.legal(sentence) or furniture.credits(sentence) or furniture.only_a_date(sentence)
    )


def _subject(match: re.Match | None, vocabulary: Vocabulary) -> str:
    """The term a definition is about; on a line of its own above the sentence that says it
    again ("check" / "check ist ein …", a manual's definition list) only the sentence's."""
    if not match:
        return ""
    lines = [line.strip() for line in match["term"].splitlines() if line.strip()]
    term = " ".join(lines)
    if len(lines) > 1 and (_repeats(lines[0], lines[-1]) or lines[0][:1].isupper()):
        term = lines[-1]  # a heading above the sentence, or the entry's name said twice
    if not _is_term(term, vocabulary):
        return ""
    # "The argument is …", "The result is …": a plain word after "the" points back to what
    # the text spoke of before; "The calling convention is …" names a thing.
    led = match.string[: match.start("term")].strip().casefold()
    if led == "the" and len(term.split()) == 1 and term.islower():
        return ""
    return term


def _repeats(heading: str, line: str) -> bool:
    """A definition list's entry: its name on a line, then a sentence that begins with it."""
    return heading.split()[0] == line.split()[0]


def _definition(text: str, span: Span, match: re.Match, german: bool) -> Span | None:
    """The definition's span, cut at the end of its own sentence, when it names what the term
    is rather than says something about it."""
    start = span.start + match.start("definition")
    end = span.start + match.end("definition")
    early = SENTENCE_END.search(text, start, end)
    if early:
        end = early.start()
    while end > start and text[end - 1] in " \t\n,;.":
        end -= 1
    words = text[start:end].split()
    if end - start < MIN_DEFINITION or len(words) < MIN_DEFINITION_WORDS:
        return None
    if POINTING.search(text[start:end]) or text[start:end].count("(") != text[start:end].count(")"):
        return None  # "eine der folgenden", "Paket : error : …", "(seit Dpkg"
    first = fold(words[0])
    if first in NEGATIONS | SUBJECTS | CLAUSES or fold(words[1]) in QUANTITIES:
        return None
    verb = match.groupdict().get("verb") or ""
    says_what = fold(verb) in ("means", "refers to", "denotes", "stands for", "bedeutet")
    noun = german and words[0][:1].isupper() and words[0].rstrip(",").isalpha()
    return Span(start, end) if says_what or noun or first in ARTICLES else None


def _is_term(term: str, vocabulary: Vocabulary) -> bool:
    words = term.split()
    if not words or len(words) > MAX_TERM_WORDS or fold(words[0]) in NOT_TERMS:
        return False
    if any(fold(word) in CONTEXT | SUBJECTS | CLAUSES for word in words):
        return False
    if re.search(r"[\"„“”«»]", term):
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
    """One card per key sentence, leaving out its heaviest term. A heading (no full stop) is
    no sentence to complete; a span the splitter read past a full stop ("… code. libffi can …")
    is cut to the sentence that holds the answer."""
    text = source.text
    for span, terms in key_sentences(source.chunk_id, text, vocabulary):
        term, occurrence = terms[0]
        own = _own_sentence(text, span, occurrence.start)
        sentence = text[own.start : own.end]
        if not sentence.rstrip(CLOSING).endswith(STOPS) or not sentence[:1].isalnum():
            continue
        first = sentence.split(maxsplit=1)[0]
        if first.isalpha() and first.islower() and fold(first) in STOPWORDS:
            continue  # "wir wollen alle Dateien …": the rest of a sentence
        if len(sentence.split()) < MIN_CLOZE_WORDS or fold(sentence.split()[0]) in REFERENCES:
            continue
        cloze = Cloze(source.chunk_id, text, own, term, occurrence)
        answer = Span(occurrence.start, occurrence.end)
        yield _card(source, cloze.replaced(BLANK), answer, "cloze")


CLOSING, STOPS = "\"'»“”)", (".", "!", "?")
MIN_CLOZE_WORDS = 5
REFERENCES = frozenset(("see", "siehe", "vgl"))  # "See MEMORY MANAGEMENT below."
# Where a sentence ends though the splitter read on: a full stop before any word, a line
# ending in "]" (a page's navigation, "Up: Types [Index]").
OWN_END = re.compile(r"[.!?;](?=\s+\S)|\](?=[ \t]*\n)")


def _parts(text: str, span: Span) -> list[Span]:
    """The sentence span cut where a sentence ends though the splitter read on."""
    parts, start = [], span.start
    for stop in OWN_END.finditer(text, span.start, span.end):
        word = re.search(r"([\w.]+)\.$", text[start : stop.end()])
        if word and fold(word.group(1)) in ABBREVIATIONS:  # "d.h. wir wollen …"
            continue
        parts.append(Span(start, stop.end()))
        start = stop.end()
    parts.append(Span(start, span.end))
    return [trimmed(text, part.start, part.end) for part in parts]


def _own_sentence(text: str, span: Span, at: int) -> Span:
    start, end = next(
        (part.start, part.end) for part in _parts(text, span) if part.start <= at < part.end
    )
    first, _, rest = text[start:end].partition("\n")
    heading = (len(first) > 2 and first.isupper()) or (
        first.split() and _repeats(first, rest.strip() or first)
    )
    if rest.strip() and heading and start + len(first) < at:
        # A manual's section title above the sentence, or an entry's name said twice.
        start += len(first) + len(rest) - len(rest.lstrip()) + 1
    return Span(start, end)
