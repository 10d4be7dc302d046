"""Real files in the vault as uploaded, cut into chunks as the extract and chunk steps cut them
(in this process, without the embedding model), and a page drawn as the jobs worker draws it."""

from dataclasses import asdict
from pathlib import Path

from apps.vault.chunking import Unit, pieces_from_units
from apps.vault.models import Chunk, Document
from apps.vault.readers import extract
from apps.vault.reading import renderings
from apps.vault.reading.models import Rendering
from apps.vault.tests.helpers import upload


def read_in(owner, path: Path, **options) -> Document:
    """The file uploaded by `owner` and read: its chunks made, its pages counted, done."""
    document = upload(owner, path, **options)
    extracted = extract(document.path, document.format)
    units = [Unit(**asdict(unit)) for unit in extracted["units"]]
    Chunk.objects.bulk_create(
        Chunk(
            document=document,
            document_sha256=document.sha256,
            ordinal=ordinal,
            text=piece.text,
            page=piece.page,
            section=piece.section,
        )
        for ordinal, piece in enumerate(pieces_from_units(units))
    )
    Document.objects.filter(pk=document.pk).update(
        status=Document.Status.DONE, pages=extracted["pages"]
    )
    document.refresh_from_db()
    return document


def drawn(document: Document, page: int) -> Rendering:
    """Page `page` (0: the text) as asked for and drawn by the worker's own function."""
    rendering = Rendering.objects.get(document=document, sha256=document.sha256, page=page)
    renderings.draw(rendering.pk, worker="jobs@test")
    rendering.refresh_from_db()
    return rendering
