"""The vault material a study item is built from: the excerpts a generated question, lesson or
card came from, and what its scope is called."""

from collections.abc import Iterable
from pathlib import PurePath

from apps.study import generator, retrieval
from apps.vault.models import Chunk, Document


def sources_for(user, chunk_ids: list[int]) -> list[Chunk]:
    """The chunks behind a generated item that `user` may still see, in the given order."""
    return sources_for_each(user, [chunk_ids])[0]


def sources_for_each(user, chunk_ids: list[list[int]]) -> list[list[Chunk]]:
    """`sources_for` of several items (a quiz's questions) in one query."""
    visible = Document.objects.visible_to(user)
    wanted = {pk for ids in chunk_ids for pk in ids}
    chunks = Chunk.objects.filter(pk__in=wanted, document__in=visible).select_related("document")
    by_id = {chunk.pk: chunk for chunk in chunks}
    return [[by_id[pk] for pk in ids if pk in by_id] for ids in chunk_ids]


def first_source(user, chunk_ids: list) -> Chunk | None:
    """The first passage an item came from that `user` can still open."""
    return next(iter(sources_for(user, [pk for pk in chunk_ids if isinstance(pk, int)])), None)


def as_prompt_sources(chunks: Iterable[Chunk]) -> list[retrieval.Source]:
    """Chunks as the generator shows them to the model again (a lesson, a recap quiz)."""
    return [
        retrieval.Source(c.pk, c.document_id, c.document.filename, c.page, c.section, c.text)
        for c in chunks
    ]


def title_of(document) -> str:
    """What study items call a document: "Zellbiologie_Klasse7.pdf" is "Zellbiologie Klasse7"."""
    return " ".join(PurePath(document.filename).stem.replace("_", " ").split()) or document.filename


def scope_title(user, scope: generator.Scope) -> str:
    names = [category.name for category in scope.categories()]
    names += [title_of(document) for document in scope.chosen_documents(user)]
    if not names:
        return "your vault"
    title = ", ".join(names[:3])
    return title + (f" and {len(names) - 3} more" if len(names) > 3 else "")
