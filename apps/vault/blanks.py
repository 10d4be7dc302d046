"""Which key term of a sentence a question may leave out, and the wrong answers offered beside
it. The blank is a term the document repeats but that is not its everyday vocabulary, written
whole, never a stop word, a verb or a number without its unit; the wrong answers are terms of
the same kind and shape (an option for an option, a constant for a constant, a plural noun for a
plural noun) from the same document and frequency band (docs/study-hub.md, "Offline items,
judged")."""

import re
import zlib
from collections.abc import Iterable

from apps.vault.furniture import DATE
from apps.vault.keyterms import Kind, Occurrence, Term, Vocabulary, same_family
from apps.vault.sentences import STOPWORDS, Span, fold

# A term (with its inflections) in more of the chunks than this is what the whole document
# talks about ("data", "Pakete"): asking for it tests nothing. Told once there are enough chunks.
GENERIC_SHARE = 1 / 3
MIN_CHUNKS_FOR_GENERIC = 10
# Below this many chunks (a few short documents) there is no telling what a document repeats.
MIN_CHUNKS_FOR_REPEATS = 30
# A number is asked for only with its unit ("900,000 bytes"), never as a date or a version.
UNITS = frozenset(
    """
    bytes byte bits bit k kb mb gb tb % percent prozent seconds second sekunden sekunde ms
    minutes minuten hours stunden days tage times mal x pixel px zeichen characters
    """.split()  # noqa: SIM905
)
# Words after which an English word stands as a noun ("the block", "of files").
NOUN_BEFORE = frozenset(
    """
    the a an this that these those its their his her our your my each every any no some all
    both of for from in on with by about into through per between under over without within
    one two three several many few more most less other another such same whole
    """.split()  # noqa: SIM905
)
# "a number of", "in any case": nouns that say how much or which, not what.
QUANTITIES = frozenset(
    "number lot couple variety bit kind sort way case fact point thing deal amount part".split()  # noqa: SIM905
)
# "mit Hilfe von", "im Rahmen", "zum Beispiel": German nouns of a set phrase that say how or
# where, not what; asked for only when the word before them is no preposition.
PHRASE_NOUNS = frozenset(
    "hilfe rahmen laufe beispiel regel grund ausnahme gegensatz vergleich bezug teil".split()  # noqa: SIM905
)
PHRASE_BEFORE = frozenset("mit im in zum zur auf unter durch vom beim aus".split())  # noqa: SIM905
NOT_NOUN_ENDINGS = ("ly", "ing", "ed")
MIN_WORD_CHUNKS = 3
# Characters that glue a term to a larger token: "/usr/share", "Dir::Cache", "0.1pl2".
GLUED_BEFORE = "/.:\\-_@"
GLUED_AFTER = "/:\\_@"
FEMININE = ("ung", "ion", "heit", "keit", "tät", "schaft", "enz", "anz", "ik")


def askable(
    vocabulary: Vocabulary, term: Term, occurrence: Occurrence, text: str, span: Span
) -> bool:
    """Whether a question may leave this writing of the term out of its sentence (one the
    sentence writes once: key_sentences sees to that)."""
    if not _whole(text, occurrence):
        return False
    if term.kind is Kind.NUMBER or re.fullmatch(r"\d+[a-z]{1,2}", term.key):
        return _measure(text, occurrence, span)
    if generic(vocabulary, term):
        return False
    if not (repeated(vocabulary, term) or _defined(text, span, occurrence)):
        return False
    if _given_away(text, span, occurrence) or _part_of_a_name(text, span, occurrence, term):
        return False
    german = _german(vocabulary, term)
    if german and term.kind in (Kind.WORD, Kind.NAME) and occurrence.surface[:1].islower():
        return False  # German nouns are capitalised: a lower-case word ("entfernen") is none
    if german and _set_phrase(text, span, occurrence):
        return False
    if term.kind is Kind.WORD:
        if german:
            return False
        # A plain English word is a key term when the document keeps coming back to it.
        return repeated(vocabulary, term, MIN_WORD_CHUNKS) and _english_noun(text, occurrence, span)
    return True


def _set_phrase(text: str, span: Span, occurrence: Occurrence) -> bool:
    before = re.findall(r"\w+", text[span.start : occurrence.start])[-1:]
    return fold(occurrence.surface) in PHRASE_NOUNS and fold("".join(before)) in PHRASE_BEFORE


def _part_of_a_name(text: str, span: Span, occurrence: Occurrence, term: Term) -> bool:
    """ "Jean-loup" of "Jean-loup Gailly’s": a name goes on beside the blank."""
    if term.kind is not Kind.NAME:
        return False
    after = re.match(r" [A-ZÄÖÜ]", text[occurrence.end : span.end])
    before = re.search(r"[A-ZÄÖÜ][\w’'-]* $", text[span.start : occurrence.start])
    return bool(after or before)


# "avalues is a vector of …", "FFI stands for …", "reinstall ist ein Alias …".
DEFINING = re.compile(
    r"\s+(?:is|are|means|stands for|denotes|ist|sind|bedeutet|steht für)\b", re.IGNORECASE
)


def _defined(text: str, span: Span, occurrence: Occurrence) -> bool:
    """The sentence opens with the term and says what it is: it defines the term."""
    lead = text[span.start : occurrence.start].strip()
    opens = not lead or fold(lead) in ("the", "a", "an", "der", "die", "das", "ein", "eine")
    return opens and DEFINING.match(text, occurrence.end, span.end) is not None


def _given_away(text: str, span: Span, occurrence: Occurrence) -> bool:
    """The answer's own word stands elsewhere in the sentence ("reinstall ist ein Alias für
    install --reinstall")."""
    core = fold(occurrence.surface.strip("-"))
    rest = fold(text[span.start : occurrence.start] + " " + text[occurrence.end : span.end])
    if re.fullmatch(r"-\w", occurrence.surface):  # "-d, --download-only"
        return re.search(rf"--{re.escape(core)}", rest) is not None
    return len(core) >= 3 and re.search(rf"(?<![\w-]){re.escape(core)}(?!\w)", rest) is not None


def _german(vocabulary: Vocabulary, term: Term) -> bool:
    """Written mostly in German chunks (a manual's synopsis may read as English)."""
    languages = [vocabulary.languages.get(chunk_id) for chunk_id in set(term.chunk_ids)]
    return languages.count("de") * 2 > len(languages)


def repeated(vocabulary: Vocabulary, term: Term, times: int = 2) -> bool:
    """Written in `times` chunks or more; in a scope of a few chunks there is no telling what
    the documents come back to, so every key term counts."""
    return small(vocabulary) or len(set(term.chunk_ids)) >= times


def small(vocabulary: Vocabulary) -> bool:
    """A scope of a few short documents: too little to tell what they come back to."""
    return len(vocabulary.languages) < MIN_CHUNKS_FOR_REPEATS


def generic(vocabulary: Vocabulary, term: Term) -> bool:
    total = len(vocabulary.languages)
    return total >= MIN_CHUNKS_FOR_GENERIC and vocabulary.spread(term) > GENERIC_SHARE


def _whole(text: str, occurrence: Occurrence) -> bool:
    before = text[occurrence.start - 1 : occurrence.start]
    after = text[occurrence.end : occurrence.end + 2]
    if before and before in GLUED_BEFORE and not occurrence.surface.startswith("-"):
        return False
    if after[:1] and after[:1] in GLUED_AFTER:
        return False
    return not (after[:1] in "-." and after[1:2].isalnum())


def _measure(text: str, occurrence: Occurrence, span: Span) -> bool:
    """A number the sentence is about: followed by its unit, not part of a date or version."""
    rest = text[occurrence.end : span.end]
    unit = re.match(r"\s*([^\W\d]+|%)", rest)
    if not unit or fold(unit.group(1)) not in UNITS:
        return bool(re.fullmatch(r"\d+[a-z]{1,2}", occurrence.term)) and not _dated(text, span)
    return not re.fullmatch(r"(?:19|20)\d\d", occurrence.term) and not _dated(text, span)


def _dated(text: str, span: Span) -> bool:
    return bool(DATE.search(text, span.start, span.end))


def _english_noun(text: str, occurrence: Occurrence, span: Span) -> bool:
    if occurrence.term.endswith(NOT_NOUN_ENDINGS) or occurrence.term in QUANTITIES:
        return False
    after = re.match(r"\s+([a-z][a-z-]*)", text[occurrence.end : span.end])
    if (
        after
        and fold(after.group(1)) not in STOPWORDS
        and not after.group(1).endswith(NOT_NOUN_ENDINGS)
    ):
        return False  # "standard input", "block size": a word that describes the next one
    if re.match(r"\s+[A-Z]", text[occurrence.end : span.end]):
        return False  # "messenger RNA": the same, before a name
    before = re.findall(r"[\w'-]+", text[span.start : occurrence.start])
    # "the block", "of organisms"; not "file names", where "file" describes the noun.
    return bool(before) and fold(before[-1]) in NOUN_BEFORE


def shape(term: Term) -> str:
    """What kind of thing a term names, by how it is written: an option, a path, a constant,
    a function or field, a dotted name, an acronym; for a word, singular or plural (English)
    or its ending (German nouns: "-ung", "-ion" …)."""
    surface = term.surface
    if term.kind is Kind.IDENTIFIER:
        for name, pattern in SHAPES:
            if re.fullmatch(pattern, surface):
                return name
        return "identifier"
    if term.kind is Kind.NUMBER:
        return "number"
    key = fold(surface.split()[-1])
    if term.kind is Kind.NAME and surface[:1].isupper() and " " not in surface:
        return next((ending for ending in FEMININE if key.endswith(ending)), key[-2:])
    return "plural" if key.endswith("s") and not key.endswith("ss") else "singular"


# Shapes that name the same sort of thing, when a few chunks hold too few of one shape.
KIN = (
    {"flag", "option"},
    {"field", "function", "dotted"},
    {"acronym", "program", "command", "identifier"},
)


def _kin(one: str, other: str, loose: bool) -> bool:
    return one == other or (loose and any({one, other} <= kin for kin in KIN))


SHAPES = (
    ("flag", r"-[A-Za-z]"),
    ("option", r"-{1,2}[A-Za-z][\w-]*"),
    ("path", r".*/.*"),
    ("constant", r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+"),
    ("field", r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+"),
    ("function", r"[A-Za-z]\w*_\w*[a-z]\w*|[a-z]+[A-Z]\w*"),
    ("dotted", r"\w+(?:(?:\.|::)\w+)+"),
    ("acronym", r"[A-Z]{2,6}\d*"),
    ("program", r"[a-z][a-z0-9]*\d[a-z0-9]*"),
    ("command", r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+"),
    ("measure", r"\d+[a-z]{1,2}"),
)


def distractors(
    vocabulary: Vocabulary,
    term: Term,
    *,
    avoid: str = "",
    prefer: Iterable[int] = (),
    before: str = "",
    limit: int = 3,
) -> list[Term]:
    """Other key terms to offer as wrong answers: of the same kind, and for identifiers of the
    same shape, for numbers of the same unit; for a noun, one the document writes after the
    word before the blank (`before`: "dem System" → "dem Rechner"), so grammar gives nothing
    away; never the term in another form, a word already in `avoid`, the document's everyday
    words, a term of another language; the chunks in `prefer` (the same document) first, then
    the closest in how often the document uses them. A scope of a few chunks holds too few terms
    for that: there, wrong answers of a kin shape (a constant for a function name) and any
    noun serve."""
    preferred = set(prefer)
    languages = {vocabulary.languages.get(chunk_id) for chunk_id in term.chunk_ids}
    wanted, spread = shape(term), vocabulary.spread(term)
    loose = small(vocabulary)
    if loose:
        before = ""
    written = {fold(word) for word in re.findall(r"[\w§][\w./:-]*\w|\w", avoid)}
    candidates = [
        other
        for other in vocabulary.terms.values()
        if other.kind is term.kind
        and other.key != term.key
        and languages.intersection(vocabulary.languages.get(c) for c in other.chunk_ids)
        and (term.kind is not Kind.IDENTIFIER or _kin(shape(other), wanted, loose))
        and repeated(vocabulary, other)
        and not generic(vocabulary, other)
        and not other.key.endswith(NOT_NOUN_ENDINGS if term.kind is Kind.WORD else ("\0",))
        and not (other.surface.isupper() and other.surface.isalpha() and len(other.surface) > 6)
    ]
    candidates.sort(
        key=lambda other: (
            not preferred.intersection(other.chunk_ids),
            shape(other) != wanted,
            abs(vocabulary.spread(other) - spread),
            zlib.crc32(f"{term.key} {other.key}".encode()),  # ties: varied, the same each time
        )
    )
    picked: list[Term] = []
    for candidate in candidates:
        if len(picked) == limit:
            break
        if same_family(candidate.surface, term.surface):
            continue
        if any(same_family(candidate.key, word) for word in written):
            continue  # the sentence has it already, maybe in another form ("documents")
        if candidate.key in term.key or term.key in candidate.key:
            continue  # a part of the answer ("Datei" of "Konfigurationsdatei")
        if any(same_family(candidate.surface, other.surface) for other in picked):
            continue
        if not _fits(vocabulary, term, candidate, before):
            continue
        picked.append(candidate)
    return picked


# Words a noun is written after: articles, possessives and the like, English and German.
DETERMINERS = NOUN_BEFORE | frozenset(
    """
    der die das den dem des ein eine einer eines einem einen kein keine keinen keinem keiner
    ihr ihre ihren ihrem ihrer sein seine seinen seinem seiner dieser diese dieses diesem
    diesen jeder jede jedes jedem jeden alle allen mehrere einige viele
    """.split()  # noqa: SIM905
)


def _fits(vocabulary: Vocabulary, term: Term, candidate: Term, before: str) -> bool:
    """Whether the wrong answer reads as well in the blank as the answer: a number with the
    same unit; a noun that the document writes after the same article ("an" before a vowel,
    "dem" before a masculine or neuter noun) or, after any other word, after some article."""
    if term.kind is Kind.NUMBER:
        return _unit(vocabulary, candidate) == _unit(vocabulary, term)
    german = vocabulary.languages.get(term.chunk_ids[0]) == "de"
    if term.kind is Kind.IDENTIFIER or (term.kind is Kind.NAME and not german):
        return True
    before = before.casefold()
    if before in DETERMINERS:  # written right after the same word
        lead = rf"(?<!\w){re.escape(before)}\s+"
    elif german:
        return True  # a German noun is capitalised: any noun reads as one
    else:  # written after some determiner, maybe with a describing word between
        lead = rf"(?<!\w)(?:{'|'.join(sorted(DETERMINERS))})\s+(?:[^\W\d_]+\s+)?"
    # … and as a noun, not describing the next word ("a marginal return").
    tail = "" if german else rf"(?=\s*(?:[^\w\s]|$)|\s+(?:{'|'.join(sorted(STOPWORDS))})\b)"
    pattern = re.compile(lead + re.escape(candidate.surface) + r"(?![\w-])" + tail, re.IGNORECASE)
    return any(pattern.search(vocabulary.texts.get(c, "")) for c in set(candidate.chunk_ids))


def determiner(before: str) -> str:
    """The word a blank's grammar hangs on, from the text before it: the article or the like
    one or two words back ("das lokale _____" → "das"), else the word right before it."""
    words = re.findall(r"[\w-]+", before)[-2:]
    for word in reversed(words):
        if word.casefold() in DETERMINERS:
            return word
    return words[-1] if words else ""


def _unit(vocabulary: Vocabulary, term: Term) -> str:
    """The word written after a number where the document first gives it ("900,000 bytes")."""
    for chunk_id in term.chunk_ids:
        found = re.search(
            rf"(?<![\w.,]){re.escape(term.surface)}\s*([^\W\d]+|%)",
            vocabulary.texts.get(chunk_id, ""),
        )
        if found:
            return fold(found.group(1))
    return ""
