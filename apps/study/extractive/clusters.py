"""A document without structure grouped by what its chunks are about: a few key terms that
recur across it each gather the chunks they are written in and name the group, so a mindmap's
branches and a workshop's lessons are its concepts, never page ranges."""

from apps.study.extractive.outline import Row, Section
from apps.vault import furniture
from apps.vault.keyterms import Kind, Term, Vocabulary, same_family

MAX_GROUPS = 6
MIN_CHUNKS = 2  # a concept the document comes back to


def clusters(rows: list[Row], vocabulary: Vocabulary, name: str) -> list[Section]:
    """Up to six groups in reading order, each named by its key term; a short document (or
    one without such terms) is one group under its own name."""
    taught = [row for row in rows if furniture.teachable(row.text)] or rows
    whole = [Section(name, taught[0].chunk_id, [row.chunk_id for row in taught], labelled=True)]
    if len(taught) <= MAX_GROUPS:
        return whole
    heads = _heads(vocabulary, {row.chunk_id for row in taught})
    if len(heads) < 2:
        return whole
    groups: dict[str, list[int]] = {}
    current = heads[0][0]
    for row in taught:
        # A chunk joins the first concept it mentions; one that mentions none stays with the
        # chunk before it, as a paragraph stays with its topic.
        current = next((head for head, own in heads if row.chunk_id in own), current)
        groups.setdefault(current.key, []).append(row.chunk_id)
    names = {head.key: head.surface for head, _ in heads}
    ordered = sorted(groups.items(), key=lambda item: item[1][0])
    return [Section(names[key], ids[0], ids, labelled=True) for key, ids in ordered]


def _heads(vocabulary: Vocabulary, inside: set[int]) -> list[tuple[Term, set[int]]]:
    """The heaviest names and identifiers (words too, in English) that several chunks share
    but not half of them, each covering chunks the ones before it did not."""
    heads: list[tuple[Term, set[int]]] = []
    covered: set[int] = set()
    for term in vocabulary.ranked():
        if len(heads) == MAX_GROUPS:
            break
        own = inside.intersection(term.chunk_ids)
        if term.kind is Kind.NUMBER or not MIN_CHUNKS <= len(own) <= len(inside) / 2:
            continue
        german = vocabulary.languages.get(term.chunk_ids[0]) == "de"
        if term.kind is Kind.WORD and german or "/" in term.key or "@" in term.key:
            continue
        if any(same_family(term.surface, head.surface) for head, _ in heads):
            continue
        if len(own - covered) >= MIN_CHUNKS:
            heads.append((term, own))
            covered |= own
    return heads
