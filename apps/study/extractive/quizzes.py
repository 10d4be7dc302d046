"""Quiz questions cut from the documents: cloze multiple choice whose wrong options are key
terms of the same kind from the same scope, and true/false made by swapping one key term.
The explanation is always the source sentence."""

import random
from collections.abc import Sequence

from apps.study.retrieval import Source
from apps.vault.cloze import BLANK, Cloze, key_sentences
from apps.vault.keyterms import Term, Vocabulary

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
    seed: int = 0,
) -> list[dict]:
    """Up to `count` questions as dicts shaped like the model's items, plus `chunk_ids`."""
    rng = random.Random(seed)
    made: list[dict] = []
    used_sentences: set[tuple[int, int]] = set()
    used_answers: set[str] = set()
    documents: dict[int, list[int]] = {}
    for source in sources:
        documents.setdefault(source.document_id, []).append(source.chunk_id)
    for per_chunk in (PER_CHUNK, None):
        for source, span, terms in _candidates(sources, vocabulary, per_chunk):
            if len(made) == count:
                return made
            if (source.chunk_id, span.start) in used_sentences:
                continue
            kind = _kind_for(len(made), types)
            near = documents[source.document_id]
            question = _question(
                source, span, terms, vocabulary, kind, difficulty, near, used_answers, rng
            )
            if question is None and len(types) > 1:
                other = "mcq" if kind == "true_false" else "true_false"
                question = _question(
                    source, span, terms, vocabulary, other, difficulty, near, used_answers, rng
                )
            if question is None:
                continue
            used_sentences.add((source.chunk_id, span.start))
            made.append(question)
    return made


def _kind_for(position: int, types: Sequence[str]) -> str:
    if "mcq" not in types:
        return "true_false"
    if "true_false" not in types:
        return "mcq"
    return "true_false" if position % TRUE_FALSE_EVERY == TRUE_FALSE_EVERY - 1 else "mcq"


def _candidates(sources: Sequence[Source], vocabulary: Vocabulary, per_chunk: int | None):
    """Sentences in turn across the passages (which already alternate documents)."""
    queues = [
        [
            (source, span, terms)
            for span, terms in key_sentences(source.chunk_id, source.text, vocabulary)
        ][:per_chunk]
        for source in sources
    ]
    while any(queues):
        for queue in queues:
            if queue:
                yield queue.pop(0)


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
    source, span, terms, vocabulary, kind, difficulty, near, used_answers, rng
) -> dict | None:
    """One question on this sentence, or None when no key term of it can be asked for."""
    sentence = source.text[span.start : span.end]
    needed = 3 if kind == "mcq" else 1
    for term, occurrence in _ordered(terms, difficulty):
        if term.key in used_answers:
            continue
        others = vocabulary.alternatives(term, avoid=sentence, prefer=near, limit=needed)
        if len(others) < needed:
            continue
        cloze = Cloze(source.chunk_id, source.text, span, term, occurrence)
        used_answers.add(term.key)
        if kind == "mcq":
            return _multiple_choice(cloze, others, rng)
        return _true_false(cloze, others[0], rng)
    return None


def _multiple_choice(cloze: Cloze, others: list[Term], rng: random.Random) -> dict:
    options = [other.surface for other in others]
    correct = rng.randrange(len(options) + 1)
    options.insert(correct, cloze.answer.surface)
    return {
        "type": "mcq",
        "question": cloze.replaced(BLANK),
        "options": options,
        "correct_index": correct,
        "explanation": cloze.text,
        "chunk_ids": [cloze.chunk_id],
    }


def _true_false(cloze: Cloze, other: Term, rng: random.Random) -> dict:
    true = rng.random() < 0.5
    statement = " ".join(cloze.text.split()) if true else cloze.replaced(other.surface)
    return {
        "type": "true_false",
        "question": statement,
        "options": list(TRUE_FALSE),
        "correct_index": 0 if true else 1,
        "explanation": cloze.text,
        "chunk_ids": [cloze.chunk_id],
    }
