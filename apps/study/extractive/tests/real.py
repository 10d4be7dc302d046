"""Real documents (bench/retrieval_eval/, and the bzip2 manual Debian installs) read and
chunked as ingestion does, without a vault: the rows the extractive generators cut their items
from."""

import gzip
from dataclasses import asdict, dataclass
from pathlib import Path

from apps.study.extractive.outline import Row
from apps.study.retrieval import Source
from apps.vault.chunking import Unit, pieces_from_units
from apps.vault.readers import extract
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


# bzip2 1.0.8's manual, 38 pages without an outline, from Debian's bzip2 package.
BZIP2_MANUAL = Path("/usr/share/doc/bzip2/manual.pdf.gz")


def bzip2_manual(folder: Path, first_id: int = 1) -> tuple[Paper, list[Row]]:
    path = folder / "bzip2-manual.pdf"
    path.write_bytes(gzip.decompress(BZIP2_MANUAL.read_bytes()))
    found = [asdict(unit) for unit in extract(path, "pdf")["units"]]
    return Paper("bzip2-manual.pdf", "pdf", path), rows_of(found, first_id)
