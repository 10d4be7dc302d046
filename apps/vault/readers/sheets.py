"""Tables: Excel workbooks sheet by sheet and CSV files in whatever dialect they are written,
as batches of rows under their header."""

import csv
import datetime
import io
from contextlib import closing
from pathlib import Path

from apps.vault.chunking import MIN_CHARS_STRUCTURED, Unit, row_batches
from apps.vault.readers.common import ExtractionError, Progress, short
from apps.vault.readers.text import decode_text
from apps.vault.readers.zipguard import check_office_zip


def cell_text(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    # Spreadsheets keep a date as a date and time: "2026-03-05", not "2026-03-05 00:00:00".
    if isinstance(value, datetime.datetime):
        if value.time() == datetime.time(0):
            return value.date().isoformat()
        return value.isoformat(" ", "seconds" if value.second else "minutes")
    if isinstance(value, datetime.time):
        return value.isoformat("seconds" if value.second else "minutes")
    return " ".join(str(value).split())  # a cell over several lines stays on its row's line


def row_line(values) -> str:
    cells = [cell_text(value) for value in values]
    while cells and not cells[-1]:
        cells.pop()
    return " | ".join(cells) if any(cells) else ""


def table_units(rows: list[str], *, section: str, prefix: str) -> list[Unit]:
    if not rows:
        return []
    header, body = rows[0], rows[1:]
    if not body:
        return [Unit(prefix + header, section=section, split=False, min_chars=MIN_CHARS_STRUCTURED)]
    return list(row_batches(body, header=header, prefix=prefix, section=section))


def extract_xlsx(path: Path, progress: Progress) -> dict:
    check_office_zip(path, "xlsx")
    import openpyxl

    units: list[Unit] = []
    try:
        with closing(openpyxl.load_workbook(path, read_only=True, data_only=True)) as workbook:
            sheets = workbook.worksheets
            for number, sheet in enumerate(sheets, 1):
                rows = [line for line in map(row_line, sheet.iter_rows(values_only=True)) if line]
                units += table_units(rows, section=sheet.title, prefix=f"[Sheet: {sheet.title}]\n")
                progress({"page": number, "pages": len(sheets)})
    except Exception as error:
        raise ExtractionError(f"The XLSX file could not be read ({short(error)}).") from error
    return {"units": units, "pages": len(sheets)}


def extract_csv(path: Path, progress: Progress) -> dict:
    text = decode_text(path.read_bytes())
    try:
        dialect = csv.Sniffer().sniff(text[:20_000], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    try:
        rows = [row_line(row) for row in csv.reader(io.StringIO(text), dialect)]
    except csv.Error as error:
        raise ExtractionError(f"The CSV file could not be read ({short(error)}).") from error
    rows = [row for row in rows if row]
    progress({"rows": len(rows)})
    return {"units": table_units(rows, section="", prefix=""), "pages": None}
