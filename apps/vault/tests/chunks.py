"""Test helpers for retrieval: documents whose chunks are embedded by the real embedded model."""

from collections.abc import Sequence

from apps.llm import gateway
from apps.vault import embedding
from apps.vault.models import Chunk, Document
from apps.vault.search import live
from apps.vault.search.models import IndexState


def add_chunks(document: Document, texts: Sequence[str], *, done: bool = True) -> list[Chunk]:
    """Chunks for `document`, embedded with the configured model; the document ingested."""
    model = gateway.embedding_model()
    vectors = embedding.chunk_vectors(texts)
    start = document.chunks.count()
    chunks = Chunk.objects.bulk_create(
        Chunk(
            document=document,
            document_sha256=document.sha256,
            ordinal=start + i,
            text=text,
            page=i + 1,
            section=f"Part {i + 1}",
            embedding=vector.tobytes(),
            embedding_model=model.name,
        )
        for i, (text, vector) in enumerate(zip(texts, vectors, strict=True))
    )
    if done:
        Document.objects.filter(pk=document.pk).update(status=Document.Status.DONE)
    IndexState.bump(document.pk)  # as ingestion does in the transaction that makes chunks live
    return chunks


def retire(document: Document) -> None:
    """Take a document's chunks out of service, as re-ingestion does."""
    Document.objects.filter(pk=document.pk).update(status=Document.Status.PROCESSING)
    IndexState.bump(document.pk)


def use_embedded_model(settings) -> None:
    """The real embedded sentence encoder, and no index left over from another test."""
    settings.EMBEDDING_BACKEND = "embedded"
    live.forget()
