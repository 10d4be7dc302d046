"""Finding a passage on a drawn page, and laying a text document out with one marked."""

from apps.vault.reading.page_marks import boxes, paragraphs, passage_words
from apps.vault.reading.text_marks import parts

# Two lines of a page, as the worker reads them: [x0, y0, x1, y1, text, block, line].
PAGE = [
    [50, 50, 80, 60, "Photosynthesis", 0, 0],
    [85, 50, 100, 60, "turns", 0, 0],
    [105, 50, 130, 60, "light", 0, 0],
    [135, 50, 150, 60, "into", 0, 0],
    [50, 62, 90, 72, "chemical", 0, 1],
    [95, 62, 130, 72, "energy.", 0, 1],
    [50, 90, 80, 100, "Mitochondria", 1, 2],
    [85, 90, 110, 100, "make", 1, 2],
    [115, 90, 130, 100, "ATP.", 1, 2],
]


def test_a_passage_is_the_run_of_words_that_holds_it_with_a_rectangle_per_line():
    marked = passage_words(PAGE, "light into chemical energy.")

    assert list(marked) == [2, 3, 4, 5]
    assert boxes(PAGE, marked) == [[105, 50, 150, 60], [50, 62, 130, 72]]


def test_a_word_the_scan_was_read_differently_stays_inside_the_passage():
    scanned = [*PAGE[:4], [50, 62, 90, 72, "chem1cal", 0, 1], *PAGE[5:]]

    marked = passage_words(scanned, "Photosynthesis turns light into chemical energy.")

    assert list(marked) == [0, 1, 2, 3, 4, 5]


def test_a_passage_from_another_page_marks_nothing():
    assert not passage_words(PAGE, "The Krebs cycle runs in the matrix of the mitochondria.")
    assert not passage_words([], "light into chemical energy")


def test_the_pages_text_comes_by_block_with_the_passage_marked():
    text = paragraphs(PAGE, passage_words(PAGE, "chemical energy. Mitochondria"))

    assert text == [
        [("Photosynthesis turns light into ", False), ("chemical energy.", True)],
        [("Mitochondria ", True), ("make ATP.", False)],
    ]


def test_sections_open_their_headings_once_and_the_passage_is_marked_in_its_own():
    units = [
        {"text": "Intro.", "page": None, "section": ""},
        {"text": "Genes code for proteins.", "page": None, "section": "Genetics"},
        {"text": "RNA is copied.", "page": None, "section": "Genetics > Transcription"},
        {"text": "Niches.", "page": None, "section": "Ecology"},
    ]

    shown = parts(units, "md", "[Section: Genetics > Transcription]\nRNA is copied.")

    assert [part.headings for part in shown] == [
        [],
        [(2, "Genetics")],
        [(3, "Transcription")],
        [(2, "Ecology")],
    ]
    assert [part.passage for part in shown] == ["", "", "RNA is copied.", ""]


def test_a_spreadsheets_batches_make_one_table_per_sheet():
    units = [
        {"text": "[Sheet: Budget]\nItem | Amount\nA | 1\nB | 2", "page": None, "section": "Budget"},
        {"text": "[Sheet: Budget]\nItem | Amount\nC | 3", "page": None, "section": "Budget"},
        {"text": "[Sheet: Notes]\nTopic\nEnzymes", "page": None, "section": "Notes"},
    ]

    shown = parts(units, "xlsx", "[Sheet: Budget]\nItem | Amount\nC | 3")

    assert [(part.headings, part.header) for part in shown] == [
        ([(2, "Budget")], ["Item", "Amount"]),
        ([(2, "Notes")], ["Topic"]),
    ]
    assert shown[0].bodies == [([["A", "1"], ["B", "2"]], False), ([["C", "3"]], True)]
