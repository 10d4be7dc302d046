"""The worst offline items teachers found, kept out (docs/study-hub.md, "Offline items, judged"):
a date blanked ("Jan _____ - Feb 2, 1996." → 31), "Further Reading" and licence text made into
questions, a heading reworded into a false statement ("MEMORY data bzip2 compresses large files
in blocks." → False), mindmap branches that are page ranges, lessons of contents pages. First on
the passages they came from, then over whole documents: the bzip2 manual Debian installs,
apt-get(8) in German as Markdown and a German manual page scanned and read back by OCR."""

import re
from dataclasses import asdict

import pytest

from apps.study.extractive import cards, lessons, quizzes, structure
from apps.study.extractive.outline import text_headings
from apps.study.mindmaps.tree import walk
from apps.study.retrieval import Source
from apps.vault import furniture
from apps.vault.cloze import key_sentences
from apps.vault.keyterms import Vocabulary
from apps.vault.sentences import fold
from bench.retrieval_eval import DOCUMENTS, MAKERS

from . import real

REFERENCES = """4.5. Further Reading
bzip2 is not research work, in the sense that it doesn't present any new ideas. Rather, it's an
engineering exercise based on existing ideas.
Peter Fenwick:
Block Sorting Text Compression
Proceedings of the 19th Australasian Computer Science Conference,
Melbourne, Australia.
Jan 31 - Feb 2, 1996.
ftp://ftp.cs.auckland.ac.nz/pub/peter-f/ACSC96paper.ps"""
LICENCE = """Copyright © 1996-2019 Julian Seward
This program, bzip2, the associated library libbzip2, and all documentation, are copyright ©
1996-2019 Julian Seward. All rights reserved.
Redistribution and use in source and binary forms, with or without modification, are permitted
provided that the following conditions are met:
PATENTS: To the best of my knowledge, bzip2 and libbzip2 do not use any patented algorithms.
However, I do not have the resources to carry out a patent search. Therefore I cannot give any
guarantee of the above statement."""
CONTENTS = """Table of Contents
2.4. OPTIONS
. . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . 4
2.5. MEMORY MANAGEMENT
. . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . 5
2.6. RECOVERING DATA FROM DAMAGED FILES
. . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . 6"""
MEMORY = """of the sorting algorithm in earlier versions, which was sometimes useful.
2.5. MEMORY MANAGEMENT
bzip2 compresses large files in blocks. The block size affects both the compression ratio
achieved, and the amount of memory needed for compression and decompression. The flags -1
through -9 specify the block size to be 100,000 bytes through 900,000 bytes (the default)
respectively. At decompression time, the block size used for compression is read from the
header of the compressed file, and bunzip2 then allocates itself just enough memory to
decompress the file."""
LEGAL_WORDS = re.compile(
    r"copyright|redistribut|warrant|guarantee|patent|licen[cs]e|lizenz|haftung", re.I
)
# What a licence page says and a lesson never should.
BOILERPLATE = re.compile(
    r"all rights reserved|redistribution and use|this software is provided|general public licen",
    re.I,
)
DATE = re.compile(r"\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\w*\b|\b(?:19|20)\d\d\b")


def answer_of(item: dict) -> str:
    if "options" in item:
        return item["options"][item["correct_index"]] if item["type"] == "mcq" else ""
    return item["back"] if item["kind"] == "cloze" else ""


def passages(*texts: str) -> list[Source]:
    return [Source(n, 1, "bzip2.pdf", None, "", text) for n, text in enumerate(texts, start=1)]


def items_of(sources: list[Source], count: int = 40) -> tuple[list[dict], list[dict]]:
    vocabulary = Vocabulary({source.chunk_id: source.text for source in sources})
    made = quizzes.questions(sources, vocabulary, count=count)
    return made, cards.cards(sources, vocabulary, count=count)


def said(item: dict) -> str:
    """Everything an item shows a student."""
    return " ".join([item.get("question", item.get("front", "")), *item.get("options", [])])


def test_references_licence_and_contents_give_no_sentence_to_ask_about():
    for text in (REFERENCES, LICENCE, CONTENTS):
        vocabulary = Vocabulary({1: text, 2: MEMORY})
        assert key_sentences(1, text, vocabulary) == [], text[:40]
    assert not furniture.teachable(CONTENTS) and not furniture.teachable(LICENCE)
    assert furniture.only_a_date("Jan 31 - Feb 2, 1996.")


def test_a_numbered_title_is_no_part_of_the_sentence_below_it():
    made, _ = items_of(passages(MEMORY, REFERENCES, LICENCE))
    assert made
    for question in made:
        assert "MEMORY" not in question["question"] and "2.5." not in question["question"]
        assert "Further Reading" not in question["question"]
        assert question["explanation"] in MEMORY


def test_a_false_statement_changes_one_fact_and_keeps_the_rest():
    made, _ = items_of(passages(MEMORY, MEMORY.replace("bunzip2", "bzip2recover")), count=20)
    false = [q for q in made if q["type"] == "true_false" and q["correct_index"] == 1]
    assert false
    for question in false:
        written = question["explanation"].split()
        changed = [a != b for a, b in zip(written, question["question"].split(), strict=False)]
        assert len(question["question"].split()) == len(written) and sum(changed) == 1


@pytest.fixture(scope="module")
def bzip2(tmp_path_factory):
    if not real.BZIP2_MANUAL.exists():
        pytest.skip("Debian's bzip2 package (its manual) is not installed here")
    return real.bzip2_manual(tmp_path_factory.mktemp("bzip2"))


def test_nothing_is_asked_of_the_bzip2_manuals_licence_contents_or_references(bzip2):
    paper, rows = bzip2
    made, deck = items_of(real.sources(paper, rows), count=60)
    assert len(made) >= 40 and len(deck) >= 40
    for item in made + deck:
        shown = said(item)
        assert not LEGAL_WORDS.search(shown), shown
        assert "Further Reading" not in shown and "research work" not in shown, shown
        assert "Jan 31" not in shown and not DATE.search(answer_of(item)), shown
        assert ". . . ." not in shown and "MEMORY MANAGEMENT" not in shown, shown
    truths = [q["correct_index"] for q in made if q["type"] == "true_false"]
    assert abs(truths.count(0) - truths.count(1)) <= 1


def test_the_bzip2_manuals_mindmap_and_workshop_follow_its_chapters(bzip2):
    paper, rows = bzip2
    tree = structure.mindmap(paper.filename, [(paper, rows)])
    assert [node["title"] for node in tree["children"]] == [
        "Introduction",
        "How to use bzip2",
        "Programming with libbzip2",
        "Miscellanea",
    ]
    titles = [node["title"] for _, node, _, _ in walk(tree)]
    assert not [title for title in titles if re.fullmatch(r"Pages? \d.*|Part \d+", title)]
    assert not {"Further Reading", "AUTHOR", "NAME"} & set(titles)
    headings = {title for _, title, _ in text_headings(rows)}
    for lesson in lessons.cut([(paper, rows)], 10):
        assert re.sub(r" \(\d+\)$", "", lesson["title"]) in headings
        assert ". . . ." not in lesson["content"] and "Table of Contents" not in lesson["content"]
        assert not BOILERPLATE.search(lesson["content"]), lesson["title"]


def test_apt_gets_sections_are_siblings_and_its_back_matter_is_left_out():
    paper, rows = real.document("apt-get.de.txt", "md", 20_000)
    tree = structure.mindmap(paper.filename, [(paper, rows)])
    branches = [node["title"] for node in tree["children"]]
    assert {"Beschreibung", "Optionen", "Dateien"} <= set(branches)
    assert not {"Name", "Siehe Auch", "Übersetzung", "Autoren", "Fehler"} & set(branches)
    made, deck = items_of(real.sources(paper, rows), count=40)
    for item in made + deck:
        assert "Übersetzung" not in said(item) and "Fehlerbericht" not in said(item), said(item)
    titles = {lesson["title"] for lesson in lessons.cut([(paper, rows)], 10)}
    assert not {"Siehe Auch", "Übersetzung", "Autoren", "Fehler"} & titles


# dpkg(1) in German, its first sections and its last, as a scanner would make them.
SCANNED = ("BEZEICHNUNG", "BESCHREIBUNG", "INFORMATIONEN ÜBER PAKETE", "AKTIONEN", "SIEHE AUCH")


@pytest.mark.embedded
def test_a_scanned_german_manual_is_read_by_its_titles_and_leaves_out_its_credits(tmp_path):
    text = (DOCUMENTS / "dpkg.de.txt").read_text(encoding="utf-8")
    start, credits = text.index("BEZEICHNUNG"), text.index("SIEHE AUCH")
    excerpt = text[start : text.index("Aktionen werden explizit")] + "\n" + text[credits:]
    path = tmp_path / "dpkg.pdf"
    MAKERS["scanned-pdf"](excerpt, path)
    found = [asdict(unit) for unit in real.extract(path, "pdf")["units"]]
    paper, rows = real.Paper("dpkg.pdf", "pdf", path), real.rows_of(found, 1)
    tree = structure.mindmap(paper.filename, [(paper, rows)])
    branches = [fold(node["title"]) for node in tree["children"]]
    assert fold("BESCHREIBUNG") in branches and fold("INFORMATIONEN ÜBER PAKETE") in branches
    assert not {fold(title) for title in ("SIEHE AUCH", "AUTOREN", "ÜBERSETZUNG")} & set(branches)
    made, deck = items_of(real.sources(paper, rows), count=30)
    assert made and deck
    for item in made + deck:
        assert not LEGAL_WORDS.search(said(item)), said(item)
        assert "Übersetzung" not in said(item) and "@" not in said(item), said(item)
