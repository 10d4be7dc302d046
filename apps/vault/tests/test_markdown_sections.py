"""Markdown headings open sections by their level, whichever levels a file skips."""

from apps.vault.chunking import Unit, pieces_from_units
from apps.vault.readers.sandbox import run_isolated


def test_markdown_sections_of_one_level_are_siblings_whichever_level_it_is(tmp_path):
    path = tmp_path / "apt-get.md"
    text = "This section of the manual page says one thing about the tool at length: {}. "
    one, two, three = (text.format(word) * 3 for word in ("name", "options", "yes"))
    path.write_text(f"## Name\n\n{one}\n\n## Options\n\n{two}\n\n### -y\n\n{three}\n")
    units = run_isolated(path, "md", timeout=60, memory_mb=2048)["units"]
    sections = [piece.section for piece in pieces_from_units(Unit(**unit) for unit in units)]
    assert sections == ["Name", "Options", "Options > -y"]
