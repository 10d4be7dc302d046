"""What the extractive generators read: the passages to cut items from, and a sample of the
scope to weigh key terms in."""

from apps.study import generator, retrieval
from apps.study.extractive import outline
from apps.study.sources import scope_title, title_of
from apps.vault.keyterms import Vocabulary

# Chunks sampled (evenly, so the result is the same every time) to weigh terms within the
# scope; a whole 10k-chunk vault would cost seconds and rank the same terms.
STATISTICS_SAMPLE = 300


def passages(user, scope: generator.Scope, count: int) -> list[retrieval.Source]:
    """Representative chunks of the scope: three per item asked, at least the prompt's 15."""
    return retrieval.retrieve(user, scope, limit=max(retrieval.MAX_CHUNKS, 3 * count))


def more_passages(user, scope: generator.Scope, sources, count: int) -> list[retrieval.Source]:
    """`sources` (a model's excerpts) and, when they are fewer than three per item asked, more
    of the scope's passages to cut the rest from."""
    found = list(sources)
    if len(found) < 3 * count:
        seen = {source.chunk_id for source in found}
        found += [source for source in passages(user, scope, count) if source.chunk_id not in seen]
    return found


def vocabulary(user, scope: generator.Scope, sources: list[retrieval.Source]) -> Vocabulary:
    """Key terms of the scope: the passages plus an even sample of its other chunks."""
    texts = {source.chunk_id: source.text for source in sources}
    chunks = retrieval.live_chunks(user, scope)
    ids = list(chunks.order_by("pk").values_list("pk", flat=True))
    step = max(1, len(ids) / STATISTICS_SAMPLE)
    sample = {ids[int(i * step)] for i in range(min(STATISTICS_SAMPLE, len(ids)))} - texts.keys()
    texts.update(chunks.filter(pk__in=sample).values_list("pk", "text"))
    return Vocabulary(texts)


def outlined(user, scope: generator.Scope) -> tuple[list[tuple], str]:
    """(document, its rows) of each of the scope's documents with rows, by name, and what to
    call them: the one document's name, else the scope's title (EmptyScope: nothing to read)."""
    retrieval.retrieve(user, scope, limit=1)  # raises EmptyScope with the reason
    documents = []
    for document in scope.documents(user).order_by("filename", "pk"):
        rows = outline.rows_of(document)
        if rows:
            documents.append((document, rows))
    name = title_of(documents[0][0]) if len(documents) == 1 else scope_title(user, scope)
    return documents, name
