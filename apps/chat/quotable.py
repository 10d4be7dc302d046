"""What of a passage can be quoted as it stands (docs/chat.md): its whole sentences, a term line
with the sentence that defines it ("-k --keep" / "Keep (don't delete) input files…"), and a
sentence with the commands it introduces ("…führen Sie einen dieser Befehle aus:" /
"dpkg --search foo"), and a sentence that points back ("In ihnen findet …") with the sentence
before it, which names what it speaks of. A question heading is never quoted; it is kept as the
heading of the sentence that follows it, which answers it.
"""

import re
from dataclasses import dataclass

from apps.vault.cloze import points_back
from apps.vault.sentences import STOPWORDS, Span, blocks, fold, is_table_row, sentences

MIN_WORDS = 4  # shorter "sentences" are headings, option names or list stubs
MAX_CHARS = 600  # a longer one is a table or a run-on block, not a sentence to quote
MAX_TERM_WORDS = 6  # a term line ("-k --keep", "BZ_DATA_ERROR") is short
MAX_COMMANDS = 3  # command lines kept after the sentence that introduces them
MAX_COMMAND_CHARS = 80

_SPACE = re.compile(r"\s+")
_QUESTION = re.compile(r"\?[!\"'»«“”’)]*$")
_CLOSED = re.compile(r"[.!?:;…][\"'»«“”’)\]]*$")
# A command line: a program name in lower case, then its arguments ("dpkg --search foo",
# "apt-file search foo", "zgrep foo Contents-ARCH.gz").
_COMMAND = re.compile(r"^[a-z][\w.+-]*(?: +\S+){0,7}$")
_TERM = re.compile(r"^(?:--?\w|[A-Z][A-Z0-9]*_)")  # an option or a constant opens a term line


@dataclass(frozen=True)
class Unit:
    start: int  # where it stands in the chunk text
    end: int
    text: str  # as it stands, each run of white space one space
    heading: str = ""  # the question heading just before it, if any
    commands: bool = False  # it ends with the commands its sentence introduces


def flat(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def units(text: str, before: str | None = None) -> list[Unit]:
    """The quotable units of a chunk, in reading order, each text once. `before` is the end of
    the chunk before it in its document ("" at the document's start; None: not known), to tell
    whether the chunk begins inside a sentence."""
    spans = sentences(text)
    lines = {(b.start, b.end) for b in blocks(text) if "\n" not in text[b.start : b.end]}
    found: list[Unit] = []
    seen: set[str] = set()
    heading, index = "", 0
    while index < len(spans):
        span = spans[index]
        piece = flat(text[span.start : span.end])
        if _QUESTION.search(piece):
            heading, index = piece, index + 1
            continue
        alone = (span.start, span.end) in lines
        if alone and _is_heading(piece):
            index += 1
            continue
        last = index
        if (
            alone
            and _is_term(piece)
            and index + 1 < len(spans)
            and len(text[spans[index + 1].start : spans[index + 1].end].split()) >= MIN_WORDS
        ):
            last = index + 1  # the term line and the sentence that defines it
        commands = _commands_after(text, spans, last, lines)
        end = spans[commands if commands is not None else last].end
        start = _named_before(text, spans, index) if points_back(piece) else span.start
        unit = Unit(start, end, flat(text[start:end]), heading, commands is not None)
        if _quotable(text, unit, before) and unit.text.casefold() not in seen:
            seen.add(unit.text.casefold())
            if found and found[-1].start == unit.start:  # the sentence it points back to
                found.pop()
            found.append(unit)
        heading, index = "", (commands if commands is not None else last) + 1
    return found


def _named_before(text: str, spans: list[Span], index: int) -> int:
    """Where the quote of a sentence that points back starts: at the whole sentence before it,
    where there is one (not a heading, a question or a command line)."""
    if index == 0:
        return spans[index].start
    before = flat(text[spans[index - 1].start : spans[index - 1].end])
    if _CLOSED.search(before) and not _QUESTION.search(before):
        return spans[index - 1].start
    return spans[index].start


def _commands_after(text: str, spans: list[Span], last: int, lines: set) -> int | None:
    """The last span of the commands the sentence ending at spans[last] introduces (it ends in
    ":" or breaks off for them), with the words that close it after them ("aus."); None when
    no command follows."""
    sentence = text[spans[last].start : spans[last].end].rstrip()
    if _CLOSED.search(sentence) and not sentence.endswith(":"):
        return None
    end = None
    for index in range(last + 1, min(last + 1 + MAX_COMMANDS, len(spans))):
        span = spans[index]
        if (span.start, span.end) not in lines or not _is_command(
            flat(text[span.start : span.end])
        ):
            break
        end = index
    if end is not None and end + 1 < len(spans):  # "…führen Sie den Befehl / dpkg --list / aus."
        rest = flat(text[spans[end + 1].start : spans[end + 1].end])
        if rest[:1].islower() and len(rest.split()) < MIN_WORDS and _CLOSED.search(rest):
            end += 1
    return end


def _is_command(line: str) -> bool:
    first = line.split()[0]
    return (
        len(line) <= MAX_COMMAND_CHARS
        and bool(_COMMAND.match(line))
        and fold(first) not in STOPWORDS
        and not line.endswith((".", ":", ","))
    )


def _is_heading(line: str) -> bool:
    """A line of a few words without punctuation ("How to use bzip2", "2.4. OPTIONS") that
    does not open a definition nor stop on a function word, as a line broken mid-sentence
    does ("Indem ein zuverlässiges, voll ausgestattetes")."""
    return (
        len(line.split()) <= MAX_TERM_WORDS
        and not _CLOSED.search(line)
        and "," not in line
        and fold(line.split()[-1]) not in STOPWORDS
        and not _is_term(line)
    )


def _is_term(line: str) -> bool:
    return (
        len(line.split()) <= MAX_TERM_WORDS and not _CLOSED.search(line) and bool(_TERM.match(line))
    )


def _quotable(text: str, unit: Unit, before: str | None) -> bool:
    """A whole sentence: long enough to say something, short enough not to be a run-on block,
    ended by its punctuation or by the commands it introduces (a line list such as "BZ_OK
    if … BZ_MEM_ERROR", or a sentence the chunk's end cuts off, is not), not a table row and not
    begun in the chunk before."""
    if len(unit.text.split()) < MIN_WORDS or len(unit.text) > MAX_CHARS:
        return False
    if not (_CLOSED.search(unit.text) or unit.commands) or is_table_row(unit.text):
        return False
    first = unit.start == len(text) - len(text.lstrip())
    return not (first and _begun_before(text, unit.text, before))


def _begun_before(text: str, first: str, before: str | None) -> bool:
    """The chunk begins inside a sentence: the text before it does not end one (the chunk may
    repeat that text's last lines). Not knowing that text, a chunk that begins with a
    lower-case function word ("andere Dokumentation verwiesen; …") does."""
    if before is None:
        word = first.split()[0]
        return word[:1].islower() and fold(word.strip(",;")) in STOPWORDS
    line = text.lstrip().split("\n", 1)[0].strip()
    at = before.rfind(line) if line else -1
    tail = (before[:at] if at >= 0 else before).rstrip()
    if not tail:
        return False
    last = flat(tail.splitlines()[-1])
    return not (_CLOSED.search(last) or _is_heading(last) or _is_term(last))
