"""What a document holds besides what it teaches, told by its shape: contents pages (dot
leaders), page numbers and running heads, licence and acknowledgement text, bibliographies,
dates and the sections that hold such things. The study generators skip them; nothing here
changes a chunk's text."""

import re
from collections import Counter
from collections.abc import Iterable

from apps.vault.sentences import body_start, fold, is_heading, is_table_row, sentences

# ". . . . . . 12", "........ iii": a contents line's leader to its page number.
DOT_LEADER = re.compile(r"(?:\.\s?){5,}\s*[\divxlc]{0,6}\s*$", re.IGNORECASE)
PAGE_NUMBER = re.compile(
    r"\s*(?:[-–—]\s*)?(?:\d{1,4}|[ivxlc]{1,7})(?:\s*[-–—])?\s*"
    r"|\s*(?:page|seite|s\.)\s*\d{1,4}(?:\s*(?:of|von|/)\s*\d{1,4})?\s*",
    re.IGNORECASE,
)
CONTENTS = re.compile(r"\s*(?:table of contents|contents|inhaltsverzeichnis|inhalt)\s*", re.I)
# Licence and warranty boilerplate, copyright lines, patents: what a page of front matter says.
LEGAL = re.compile(
    r"copyright|\(c\)\s*\d{4}|©|all rights reserved|alle rechte vorbehalten|"
    r"redistribution|permission is hereby granted|provided that the following conditions|"
    r"warrant|gewährleistung|merchantability|disclaim|liable|haftung|licen[cs]|lizenz|"
    r"patent|guarantee|garantie|trademark|warenzeichen",
    re.IGNORECASE,
)
THANKS = re.compile(
    r"\b(?:thanks?|grateful|acknowledg\w*|contributed|contributions|danke?\w*|beigetragen)\b",
    re.IGNORECASE,
)
# "Wenn Sie einen Fehler in APT berichten möchten …", "Please report bugs to …".
REPORTING = re.compile(
    r"\b(?:report\w*|bericht\w*|meld\w*)\b.*\b(?:bugs?|fehler\w*)\b"
    r"|\b(?:bugs?|fehler)\b.*\b(?:report\w*|bericht\w*|meld\w*)\b|fehlerbericht|bug ?report",
    re.IGNORECASE,
)
ADDRESS = re.compile(r"(?:https?|ftp)://|\bwww\.|\S@\S+\.\w", re.IGNORECASE)
MONTHS = (
    "jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec|january|february|march|april|june|"
    "july|august|september|october|november|december|januar|februar|märz|mai|juni|juli|"
    "oktober|dezember"
)
DATE = re.compile(
    rf"\b(?:\d{{1,2}}\.?\s*(?:{MONTHS})\.?|(?:{MONTHS})\.?\s+\d{{1,2}}\b|(?:{MONTHS})\.?\s+(?:19|20)\d\d)"
    r"|\b(?:19|20)\d\d\b|\b\d{1,2}\.\d{1,2}\.(?:19|20)?\d\d\b",
    re.IGNORECASE,
)
# Lines of a list of references: quoted titles, proceedings and journals, addresses, years.
REFERENCE = re.compile(
    r"^\s*[\"“„].{8,}[\"”“]\s*$|\bproceedings\b|\bconference\b|\bjournal\b|\bvol\.?\s*\d|"
    r"\bpp\.\s*\d|\bisbn\b|\bdoi\b|\btagungsband\b|\bverlag\b|(?:https?|ftp)://|\bwww\.",
    re.IGNORECASE,
)
SMALL_WORDS = frozenset(
    """
    a an and the of in on for to with at by from or as is vs und oder der die das des den dem
    für von mit im in am an zu zur zum auf über
    """.split()  # noqa: SIM905
)
# Sections that hold no teaching text: contents, references, licence, credits, translators.
SECTIONS = frozenset(
    fold(title)
    for title in """
    table of contents|contents|inhaltsverzeichnis|inhalt|index|register|stichwortverzeichnis|
    further reading|references|bibliography|literature|literatur|literaturverzeichnis|quellen|
    see also|siehe auch|author|authors|autor|autoren|translation|translations|übersetzung|
    acknowledgements|acknowledgments|danksagung|credits|copyright|licence|license|lizenz|
    colophon|impressum|reporting bugs|bugs|fehlerberichte
    """.replace("\n", "").split("|")
)
MIN_REFERENCE_SHARE = 0.4


def toc_line(line: str) -> bool:
    return bool(DOT_LEADER.search(line)) or bool(CONTENTS.fullmatch(line))


def page_number(line: str) -> bool:
    return bool(line.strip()) and bool(PAGE_NUMBER.fullmatch(line))


def title_case(line: str) -> bool:
    """Every word but the small ones capitalised ("Block Sorting Text Compression")."""
    words = re.findall(r"[^\W\d_][\w’'-]*", line)
    big = [word for word in words if fold(word) not in SMALL_WORDS]
    return len(big) >= 2 and all(word[0].isupper() for word in big)


def name_line(line: str) -> bool:
    """A line of names or a title on its own, as a reference list has them: two to eight
    capitalised words, no full sentence ("Daniel S. Hirschberg and Debra A. LeLewer")."""
    line = line.strip().rstrip(":")
    if ":" in line or line.endswith(".") or is_table_row(line):  # settings, a table's row
        return False
    return 2 <= len(line.split()) <= 8 and title_case(line)


def section_title(title: str) -> bool:
    """A section that teaches nothing: contents, references, licence, authors, translators."""
    title = re.sub(r"^\s*(?:\d+\.)*\d*\.?\s*", "", title)
    return fold(" ".join(title.split())) in SECTIONS


def legal(text: str) -> bool:
    return bool(LEGAL.search(text))


def credits(text: str) -> bool:
    """Thanks, contributors, where to write or report a bug."""
    return any(pattern.search(text) for pattern in (THANKS, ADDRESS, REPORTING))


def mostly_matter(text: str) -> bool:
    """Text whose sentences are mostly licence, credits or dates: a section of back matter
    under a title that does not say so ("Fehler": how to report a bug)."""
    said = [text[span.start : span.end] for span in sentences(text)]
    said = [sentence for sentence in said if len(sentence.split()) >= 3]
    matter = sum(legal(s) or credits(s) or only_a_date(s) for s in said)
    return bool(said) and matter * 2 >= len(said)


def only_a_date(sentence: str) -> bool:
    """ "Jan 31 - Feb 2, 1996.", "Version 1.0.8 of 13 July 2019": a date and little else."""
    if not DATE.search(sentence):
        return False
    rest = re.findall(r"[^\W\d_]{3,}", DATE.sub(" ", sentence))
    return len([word for word in rest if fold(word) not in SMALL_WORDS]) < 3


def teachable(text: str) -> bool:
    """False for a chunk of front or back matter: a contents page, a licence, a list of
    references, a section named like one (its `[Section: …]` line)."""
    breadcrumb = text[: body_start(text)].strip().strip("[]")
    if breadcrumb and any(section_title(part) for part in breadcrumb.split(":", 1)[-1].split(">")):
        return False
    lines = [line.strip() for line in text[body_start(text) :].splitlines() if line.strip()]
    if not lines:
        return False
    contents = sum(toc_line(line) for line in lines)
    if contents * 4 >= len(lines):
        return False
    if len({match.group().casefold() for match in LEGAL.finditer(text)}) >= 3:
        return False
    references = sum(bool(REFERENCE.search(line)) or name_line(line) for line in lines)
    dated = sum(bool(DATE.search(line)) for line in lines)
    return (references + dated) < MIN_REFERENCE_SHARE * len(lines) or len(lines) < 4


def matter(text: str) -> list[tuple[int, int]]:
    """Where in the chunk a section that teaches nothing runs ("4.5. Further Reading",
    "SIEHE AUCH"): from its heading to the next heading or the chunk's end."""
    ranges: list[tuple[int, int]] = []
    lines = text.splitlines(keepends=True)
    offset, start = 0, None
    for number, line in enumerate(lines):
        stripped = line.strip()
        following = lines[number + 1].strip() if number + 1 < len(lines) else ""
        if stripped and is_heading(stripped, following):
            if start is not None:
                ranges.append((start, offset))
            start = offset if section_title(stripped) else None
        offset += len(line)
    if start is not None:
        ranges.append((start, offset))
    return ranges


MIN_RUNNING = 3


def running_heads(texts: Iterable[str]) -> set[str]:
    """Lines a document repeats at the top of its pages ("How to use bzip2"): the first line
    of three chunks or more, short and without a full stop."""
    firsts = Counter()
    for text in texts:
        lines = [line.strip() for line in text[body_start(text) :].splitlines() if line.strip()]
        if lines and len(lines[0].split()) <= 6 and not lines[0].endswith((".", ":", "!", "?")):
            firsts[lines[0]] += 1
    return {line for line, count in firsts.items() if count >= MIN_RUNNING}
