"""A document's sections as the outline draws them (apps/study/extractive/outline.py): every
section of a PDF's outline keeps the text under it, however the chunks fall on its pages, and
its lesson reads from below its title."""

from types import SimpleNamespace

import pymupdf

from apps.study.extractive import lessons
from apps.study.extractive.outline import Row, outline

PAGES = [
    [
        (
            "1. Die Zelle",
            "Die Zelle ist die kleinste Einheit des Lebens. Alle Lebewesen bestehen aus Zellen.",
        ),
        (
            "2. Die Zellorganellen",
            "Der Zellkern enthält die Erbinformation. Mitochondrien liefern Energie.",
        ),
    ],
    [
        (
            "3. Die Fotosynthese",
            "Pflanzen stellen bei der Fotosynthese aus Wasser und Licht Glucose her.",
        ),
        (
            "4. Die Zellteilung",
            "Bei der Mitose entstehen aus einer Zelle zwei gleiche Tochterzellen.",
        ),
    ],
    [("5. Zusammenfassung", "Zellen sind hoch organisierte Einheiten mit vielen Aufgaben.")],
]


def pdf_with_outline(path):
    """Three pages, two sections on each of the first two, each title in the PDF's outline."""
    pdf = pymupdf.open()
    toc = []
    for number, sections in enumerate(PAGES, start=1):
        page = pdf.new_page()
        y = 72
        for title, text in sections:
            page.insert_text((72, y), title, fontsize=14)
            page.insert_text((72, y + 24), text, fontsize=10)
            toc.append([1, title, number])
            y += 200
    pdf.set_toc(toc)
    pdf.save(path)
    return SimpleNamespace(pk=1, filename=path.name, format="pdf", path=path)


def row(chunk_id, page, *parts):
    return Row(chunk_id, chunk_id, page, "", "\n".join(parts))


def test_two_sections_on_one_page_each_keep_their_text(tmp_path):
    document = pdf_with_outline(tmp_path / "zellen.pdf")
    (title_1, text_1), (title_2, text_2) = PAGES[0]
    (title_3, text_3), (title_4, text_4) = PAGES[1]
    [(title_5, text_5)] = PAGES[2]
    rows = [  # chunks as the chunker cut them: one holds the end of a section and the next
        row(1, 1, title_1, text_1, title_2, text_2),
        row(2, 1, text_2.replace("Der", "Jeder"), "Ribosomen bauen Proteine auf."),
        row(3, 2, title_3, text_3, title_4, text_4),
        row(4, 3, title_5, text_5),
    ]

    sections = outline(document, rows)

    assert [section.title for section in sections] == [title_1, title_2, title_3, title_4, title_5]
    chunks = {section.title: section.all_chunk_ids() for section in sections}
    assert chunks[title_1] == [1] and chunks[title_2] == [1, 2]
    assert chunks[title_3] == [3] and chunks[title_4] == [3]
    assert chunks[title_5] == [4]


def test_a_page_inside_a_long_chunk_starts_its_section_in_that_chunk(tmp_path):
    document = pdf_with_outline(tmp_path / "zellen.pdf")
    (title_1, text_1), (title_2, text_2) = PAGES[0]
    (title_3, text_3), (title_4, text_4) = PAGES[1]
    [(title_5, text_5)] = PAGES[2]
    rows = [  # the second page begins inside the first chunk, which runs on into it
        row(1, 1, title_1, text_1, title_2, text_2, title_3, text_3),
        row(2, 3, title_5, text_5),
    ]

    chunks = {section.title: section.all_chunk_ids() for section in outline(document, rows)}

    assert chunks[title_3] == [1] and chunks[title_5] == [2]


def test_a_lesson_starts_below_its_sections_title(tmp_path):
    document = pdf_with_outline(tmp_path / "zellen.pdf")
    (title_1, text_1), (title_2, text_2) = PAGES[0]
    rows = [row(1, 1, title_1, text_1), row(2, 1, title_2, text_2)]

    made = lessons.cut([(document, rows)], 5)

    assert [lesson["title"] for lesson in made] == [title_1, title_2]
    for lesson, text in zip(made, (text_1, text_2), strict=True):
        assert lesson["content"].replace("**", "").startswith(text.split(". ")[0])
