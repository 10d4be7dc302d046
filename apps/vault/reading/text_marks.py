"""A document without pages to draw, as it is read: its extracted units under their headings
(section paths, slides, sheets), tables split into rows and cells, and a passage marked. Pure
Python on the units the worker extracted."""

import os
import re
from dataclasses import dataclass, field

TABLES = {"xlsx", "csv"}
SECTION_PREFIX = re.compile(
    r"^\[Section: [^\]\n]*\]\n"
)  # the breadcrumb a Markdown chunk starts with
SHEET_PREFIX = "[Sheet: "


@dataclass
class Part:
    """A unit as shown: the headings it opens, then its text split around the marked passage,
    or a table: its header and its batches of rows (one marked)."""

    headings: list[tuple[int, str]]
    anchor: str = ""
    before: str = ""
    passage: str = ""
    after: str = ""
    header: list[str] | None = None
    bodies: list[tuple[list[list[str]], bool]] = field(default_factory=list)


def passage_body(text: str) -> str:
    """A chunk's own text, without the breadcrumb every chunk of its section repeats."""
    return SECTION_PREFIX.sub("", text, count=1).strip()


def parts(units: list[dict], fmt: str, passage: str = "") -> list[Part]:
    """Every unit, each opening the headings its section path (or slide) adds; the first unit
    holding `passage` has it marked. A spreadsheet's batches of rows under one header make one
    table."""
    body = passage_body(passage) if passage else ""
    shown: list[Part] = []
    trail: list[str] = []
    for unit in units:
        path = heading_path(unit, fmt)
        opened = len(os.path.commonprefix([trail, path]))  # by the units before it
        part = Part([(min(2 + i, 4), path[i]) for i in range(opened, len(path))])
        trail = path
        part.anchor = f"page-{unit['page']}" if unit.get("page") else ""
        # A Word section and a slide start with their heading's line: shown once, as the heading.
        lead = unit["section"].rsplit(" > ", 1)[-1] + "\n" if part.headings else "\n"
        text = unit["text"].strip().removeprefix(lead)
        marked = bool(body) and body.removeprefix(lead) in text
        body = "" if marked else body  # the first place only
        if fmt in TABLES:
            header, *rows = table_lines(text) or [""]
            batch = ([cells(row) for row in rows], marked)
            last = shown[-1] if shown else None
            if last and last.header == cells(header) and not part.headings:
                last.bodies.append(batch)
                continue
            part.header, part.bodies = cells(header), [batch]
        elif marked:
            part.before, part.passage, part.after = text.partition(
                passage_body(passage).removeprefix(lead)
            )
        else:
            part.before = text
        shown.append(part)
    return shown


def heading_path(unit: dict, fmt: str) -> list[str]:
    if fmt == "pptx":
        title = unit["section"]
        return [f"Slide {unit['page']}: {title}" if title else f"Slide {unit['page']}"]
    return [title for title in unit["section"].split(" > ") if title]


def table_lines(text: str) -> list[str]:
    """A batch's lines, its header first, without the sheet's name a spreadsheet's starts with."""
    lines = text.split("\n")
    return lines[1:] if lines and lines[0].startswith(SHEET_PREFIX) else lines


def cells(line: str) -> list[str]:
    return line.split(" | ")
