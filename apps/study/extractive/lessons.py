"""A lesson cut from the documents: the relevant passages cleaned (breadcrumbs, overlaps and
broken line wraps gone) and in reading order, key terms in bold, each passage with where it
is from, and a short cloze check at the end."""

import re
from collections.abc import Sequence

from apps.study.retrieval import Source
from apps.vault.cloze import ANSWER_KINDS, BLANK, Cloze, key_sentences
from apps.vault.keyterms import Vocabulary, tokens
from apps.vault.sentences import body_start

MARKED_TERMS = 6
CHECKS = 3
MIN_OVERLAP = 20
_MARKDOWN = re.compile(r"([\\`*_\[\]<>#|~])")


def clean(text: str) -> str:
    """The chunk's own text as paragraphs: wrapped lines joined, hyphenated breaks mended."""
    text = text[body_start(text) :]
    text = re.sub(r"(\w)-\n(?=[a-zäöüß])", r"\1", text)
    paragraphs = []
    for block in re.split(r"\n\s*\n", text):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        joined: list[str] = []
        for line in lines:
            alone = " | " in line or re.match(r"(?:[-*•–]|\d{1,2}[.)])\s", line)
            heading = len(line) < 60 and not line.endswith((".", ",", ";", ":", "-"))
            ended = joined and (joined[-1].endswith((".", ":", "!", "?")) or len(joined[-1]) < 60)
            if joined and not alone and not heading and not ended:
                joined[-1] += " " + line
            else:
                joined.append(line)
        paragraphs.append("\n".join(joined))
    return "\n\n".join(p for p in paragraphs if p)


def without_overlap(previous: str, text: str) -> str:
    """`text` without the start it shares with the end of the chunk before it."""
    for size in range(min(len(previous), len(text), 400), MIN_OVERLAP - 1, -1):
        if previous.endswith(text[:size]):
            return text[size:].lstrip()
    return text


def escape(text: str) -> str:
    return _MARKDOWN.sub(r"\\\1", text)


def marked(text: str, keys: set[str]) -> str:
    """Escaped Markdown with the first writing of each key term in bold."""
    parts, last, done = [], 0, set()
    for occurrence in tokens(text, None):
        if occurrence.term in keys and occurrence.term not in done:
            done.add(occurrence.term)
            parts += [escape(text[last : occurrence.start]), f"**{escape(occurrence.surface)}**"]
            last = occurrence.end
    parts.append(escape(text[last:]))
    return "".join(parts)


def lesson(sources: Sequence[Source], vocabulary: Vocabulary) -> str:
    """The lesson's Markdown from its chunks, given in reading order."""
    inside = {source.chunk_id for source in sources}
    terms = [term for term in vocabulary.ranked() if inside.intersection(term.chunk_ids)]
    terms.sort(key=lambda term: ANSWER_KINDS.index(term.kind))  # stable: by weight within
    keys = {term.key for term in terms[:MARKED_TERMS]}
    parts: list[str] = []
    previous = None
    for source in sources:
        text = source.text
        if previous is not None and previous.document_id == source.document_id:
            text = text[: body_start(text)] + without_overlap(
                previous.text, text[body_start(text) :]
            )
        previous = source
        body = clean(text)
        if not body:
            continue
        where = source.filename + (f", page {source.page}" if source.page else "")
        parts += [marked(body, keys), f"*— {escape(where)}*"]
    checks = _checks(sources, vocabulary)
    if checks:
        parts.append("### Check yourself")
        parts.append(
            "\n".join(f"{n}. {escape(c.replaced(BLANK))}" for n, c in enumerate(checks, 1))
        )
        answers = " · ".join(f"{n}. {escape(c.answer.surface)}" for n, c in enumerate(checks, 1))
        parts.append(f"Answers: {answers}")
    return "\n\n".join(parts)


def _checks(sources: Sequence[Source], vocabulary: Vocabulary) -> list[Cloze]:
    """One cloze per passage (its heaviest sentence), up to three, each a different answer."""
    checks: list[Cloze] = []
    answers: set[str] = set()
    for source in sources:
        for span, terms in key_sentences(source.chunk_id, source.text, vocabulary):
            term, occurrence = terms[0]
            if term.key not in answers:
                answers.add(term.key)
                checks.append(Cloze(source.chunk_id, source.text, span, term, occurrence))
                break
        if len(checks) == CHECKS:
            break
    return checks
