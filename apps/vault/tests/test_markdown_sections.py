"""Markdown headings open sections by their level, whichever levels a file skips, and an HTML
page's headings do too; a section holds the text a reader sees, without markup."""

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


def test_a_chunk_holds_the_text_a_reader_of_the_markdown_sees(tmp_path):
    """No emphasis marks, link targets or table rules reach a chunk, so neither a search hit
    nor a quiz question cut from it shows them."""
    path = tmp_path / "cells.md"
    path.write_text(
        "# Cell **biology**\n\n"
        "The **nucleus** holds the _genetic_ material; see [the atlas](https://example.org).\n\n"
        "| Organelle | **Function** |\n|---|---|\n| Ribosome | makes proteins |\n\n"
        "1. Mitochondria make ATP.\n2. Chloroplasts `capture` light.\n"
    )
    units = run_isolated(path, "md", timeout=60, memory_mb=2048)["units"]
    (piece,) = pieces_from_units(Unit(**unit) for unit in units)

    assert piece.section == "Cell biology"
    assert piece.text == (
        "[Section: Cell biology]\n"
        "The nucleus holds the genetic material; see the atlas.\n\n"
        "Organelle | Function\nRibosome | makes proteins\n\n"
        "1. Mitochondria make ATP.\n2. Chloroplasts capture light."
    )


def test_a_plain_html_page_keeps_its_headings_as_sections(tmp_path):
    """A teacher's own page: headings and paragraphs in the body, no article around them."""
    path = tmp_path / "plates.html"
    path.write_text(
        "<html><head><title>Plates</title></head><body><h1>Plate Tectonics</h1>"
        "<p>The outer shell of the Earth is cut into <b>large</b> plates that move slowly.</p>"
        "<h2>Continental drift</h2>"
        "<p>Alfred Wegener proposed in 1912 that the continents were once joined together.</p>"
        "<h2>Plate boundaries</h2><ul><li>divergent boundaries</li><li>convergent ones</li></ul>"
        "<p>Plates meet at three kinds of boundary.<br>Most earthquakes happen along them.</p>"
        "</body></html>"
    )

    units = run_isolated(path, "html", timeout=60, memory_mb=2048)["units"]
    chunks = pieces_from_units(Unit(**unit) for unit in units)

    assert [chunk.section for chunk in chunks] == [
        "Plate Tectonics",
        "Plate Tectonics > Continental drift",
        "Plate Tectonics > Plate boundaries",
    ]
    assert chunks[0].text == (
        "[Section: Plate Tectonics]\n"
        "The outer shell of the Earth is cut into large plates that move slowly."
    )
    assert chunks[2].text.endswith(
        "- divergent boundaries\n- convergent ones\n\n"
        "Plates meet at three kinds of boundary.\nMost earthquakes happen along them."
    )
