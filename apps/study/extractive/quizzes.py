"""Quiz questions cut from the documents: cloze multiple choice whose wrong options are key
terms of the same kind and shape from the same document (apps/vault/blanks.py), and
true/false statements, half of them as written and half made false by one real change
(statements.py). The explanation is always the source sentence; where the answer stands among
the options is decided when the quiz is stored (quizzes/generation.py)."""

from collections.abc import Sequence

from apps.study.extractive.statements import false_statement
from apps.study.retrieval import Source
from apps.vault.blanks import determiner, distractors
from apps.vault.cloze import BLANK, Cloze, key_sentences
from apps.vault.keyterms import Kind, Term, Vocabulary

TRUE_FALSE = ("True", "False")
# Every third question is true/false when both kinds are asked for.
TRUE_FALSE_EVERY = 3
PER_CHUNK = 2  # first pass; more only when the scope is too small otherwise


def questions(
    sources: Sequence[Source],
    vocabulary: Vocabulary,
    *,
    count: int,
    types: Sequence[str] = ("mcq", "true_false"),
    difficulty: str = "intermediate",
) -> list[dict]:
    """Up to `count` questions as dicts shaped like the model's items, plus `chunk_ids`."""
    made: list[dict] = []
    truths: list[bool] = []  # of the true/false statements so far
    used_sentences: set[str] = set()  # as written, also where chunks repeat each other
    used_answers: set[str] = set()
    documents: dict[int, list[int]] = {}
    for source in sources:
        documents.setdefault(source.document_id, []).append(source.chunk_id)
    for source, span, terms, exact in _candidates(sources, vocabulary):
        if len(made) == count:
            return made
        written = " ".join(source.text[span.start : span.end].split())
        if written in used_sentences:
            continue
        kind = _kind_for(len(made), types)
        near = documents[source.document_id]
        asked = (vocabulary, difficulty, near, used_answers, truths, exact)
        question = _question(source, span, terms, kind, *asked)
        if question is None and len(types) > 1:
            other = "mcq" if kind == "true_false" else "true_false"
            question = _question(source, span, terms, other, *asked)
        if question is None:
            continue
        used_sentences.add(written)
        made.append(question)
    return made


def _kind_for(position: int, types: Sequence[str]) -> str:
    if "mcq" not in types:
        return "true_false"
    if "true_false" not in types:
        return "mcq"
    return "true_false" if position % TRUE_FALSE_EVERY == TRUE_FALSE_EVERY - 1 else "mcq"


def _candidates(sources: Sequence[Source], vocabulary: Vocabulary):
    """Sentences in turn across the passages (which already alternate documents): first those
    that can ask for an exact term (an identifier, a number with its unit, an English name),
    two a passage, then more; then the rest the same way."""
    found = [
        [
            (source, span, terms)
            for span, terms in key_sentences(source.chunk_id, source.text, vocabulary)
        ]
        for source in sources
    ]
    for exact, per_chunk in PASSES:
        queues = [
            [c for c in each if exact is None or _exact(c[2], vocabulary) == exact][:per_chunk]
            for each in found
        ]
        while any(queues):
            for queue in queues:
                if queue:
                    yield (*queue.pop(0), exact)


# (exact terms only?, sentences a passage); the last pass takes whatever is left.
PASSES = ((True, PER_CHUNK), (True, None), (False, PER_CHUNK), (False, None), (None, None))


def _exact(terms: list, vocabulary: Vocabulary) -> bool:
    return any(
        term.kind in (Kind.IDENTIFIER, Kind.NUMBER)
        or (term.kind is Kind.NAME and vocabulary.languages.get(term.chunk_ids[0]) != "de")
        for term, _ in terms
    )


def _ordered(terms: list, difficulty: str) -> list:
    """Which key term to ask for (identifiers and names before plain words, as given): the
    heaviest for beginners, the lightest detail for advanced, one between for intermediate."""
    groups: dict = {}
    for pair in terms:
        groups.setdefault(pair[0].kind, []).append(pair)
    ordered = []
    for group in groups.values():
        group.sort(key=lambda pair: -pair[0].weight)
        if difficulty == "advanced":
            group.reverse()
        elif difficulty == "intermediate" and len(group) > 2:
            group = group[1:] + group[:1]
        ordered += group
    return ordered


def _question(
    source, span, terms, kind, vocabulary, difficulty, near, used_answers, truths, exact
) -> dict | None:
    """One question on this sentence, or None when none can be asked of it: a multiple choice
    needs a key term with three wrong answers that fit its blank; a false statement needs a
    safe change (statements.false_statement), a true one is the sentence as written."""

    def cloze_of(term, occurrence) -> Cloze:
        return Cloze(source.chunk_id, source.text, span, term, occurrence)

    if kind == "true_false":
        # Only a sentence with a fact that can be changed: shown as written or changed, in
        # turn, so "True" is no safer guess than "False".
        statement = false_statement(terms, cloze_of, vocabulary, near)
        if statement is None:
            return None
        false = truths.count(False) <= truths.count(True)
        truths.append(not false)
        return _true_false(cloze_of(*terms[0]), statement if false else None)
    sentence = source.text[span.start : span.end]
    if exact:  # this pass asks for exact terms only
        terms = [pair for pair in terms if _exact([pair], vocabulary)]
    for term, occurrence in _ordered(terms, difficulty):
        if term.key in used_answers:
            continue
        before = determiner(source.text[span.start : occurrence.start])
        others = distractors(vocabulary, term, avoid=sentence, prefer=near, before=before)
        if len(others) < 3:
            continue
        used_answers.add(term.key)
        return _multiple_choice(cloze_of(term, occurrence), others)
    return None


def _multiple_choice(cloze: Cloze, others: list[Term]) -> dict:
    return {
        "type": "mcq",
        "question": cloze.replaced(BLANK),
        "options": [cloze.answer.surface] + [other.surface for other in others],
        "correct_index": 0,
        "explanation": cloze.text,
        "chunk_ids": [cloze.chunk_id],
    }


def _true_false(cloze: Cloze, false: str | None) -> dict:
    return {
        "type": "true_false",
        "question": false or " ".join(cloze.text.split()),
        "options": list(TRUE_FALSE),
        "correct_index": 1 if false else 0,
        "explanation": cloze.text,
        "chunk_ids": [cloze.chunk_id],
    }
