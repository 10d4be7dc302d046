"""Real documents (bench/retrieval_eval/) read and chunked as ingestion does, without a vault:
the rows the extractive generators cut cards and mindmaps from."""

from dataclasses import dataclass
from pathlib import Path

from apps.study.extractive.outline import Row
from apps.study.retrieval import Source
from apps.vault.chunking import Unit, pieces_from_units
from bench.retrieval_eval import DOCUMENTS, units
from bench.retrieval_eval import Source as EvalSource


@dataclass(frozen=True)
class Paper:
    """What the generators read of a vault document."""

    filename: str
    format: str
    path: Path
    pk: int = 1


def rows_of(found: list[dict], first_id: int) -> list[Row]:
    pieces = pieces_from_units(Unit(**unit) for unit in found)
    return [
        Row(first_id + ordinal, ordinal, piece.page, piece.section, piece.text)
        for ordinal, piece in enumerate(pieces)
    ]


def document(name: str, format: str, first_id: int = 1) -> tuple[Paper, list[Row]]:
    """A document of the evaluation made in `format` and read back by the app's extractors."""
    found = units(EvalSource(name, format, "", "", ""))
    return Paper(name, format, DOCUMENTS / name), rows_of(found, first_id)


def sources(paper: Paper, rows: list[Row]) -> list[Source]:
    return [
        Source(row.chunk_id, 1, paper.filename, row.page, row.section, row.text) for row in rows
    ]
