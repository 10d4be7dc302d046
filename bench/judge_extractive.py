"""Prints the offline study items a teacher judges (docs/study-hub.md, "Offline items, judged"):
10 of each kind from each of three real documents, made as the Study Hub makes them without a
model: the questions of a quiz of 10 (multiple choice and true/false), the cards of a deck of
10, the first 10 nodes of a mindmap (branches and their children, in reading order) and the 10
lessons of a workshop (title, opening and check), each document on its own.

The documents: the bzip2 manual (manual.pdf of Debian's bzip2 package), apt-get(8) in German
as Markdown and dpkg(1) in German as a scanned PDF read back by OCR, both from
bench/retrieval_eval/. Each is read by the app's extractors and chunked as ingestion does; a
quiz or a deck reads 30 chunks spaced evenly through it (as the Study Hub spreads a scope's
chunks) and weighs key terms over all of them.

    .venv/bin/python bench/judge_extractive.py [quiz|cards|mindmap|lessons ...]
"""

import dataclasses
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["DATA_DIR"] = tempfile.mkdtemp(prefix="bench-judge-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cognivault_site.settings")

import django  # noqa: E402

django.setup()

from apps.study.extractive import cards, lessons, quizzes, structure  # noqa: E402
from apps.study.extractive.tests import real  # noqa: E402
from apps.study.mindmaps.tree import clean_tree, walk  # noqa: E402
from apps.vault.keyterms import Vocabulary  # noqa: E402

PER_DOCUMENT = 10
PASSAGES = 3 * PER_DOCUMENT
LETTERS = "ABCD"


def documents():
    scan, rows = real.document("dpkg.de.txt", "scanned-pdf", 40_000)
    return [
        real.bzip2_manual(Path(os.environ["DATA_DIR"])),
        real.document("apt-get.de.txt", "md", 20_000),
        (dataclasses.replace(scan, filename="dpkg.de.scan.pdf", format="pdf"), rows),
    ]


def spread(paper, rows):
    """The chunks a quiz or deck of the whole document reads: evenly spaced, first included."""
    step = max(1, len(rows) / PASSAGES)
    chosen = [rows[int(i * step)] for i in range(min(PASSAGES, len(rows)))]
    return real.sources(paper, chosen)


def vocabulary_of(rows) -> Vocabulary:
    return Vocabulary({row.chunk_id: row.text for row in rows})


def print_quiz(paper, rows) -> None:
    made = quizzes.questions(spread(paper, rows), vocabulary_of(rows), count=PER_DOCUMENT)
    for number, question in enumerate(made, start=1):
        options = " · ".join(
            f"{'*' if i == question['correct_index'] else ''}{LETTERS[i]}) {option}"
            for i, option in enumerate(question["options"])
        )
        print(f"{number:2}. [{question['type']}] {question['question']}\n    {options}")
        print(f"    source: {' '.join(question['explanation'].split())}")


def print_cards(paper, rows) -> None:
    made = cards.cards(spread(paper, rows), vocabulary_of(rows), count=PER_DOCUMENT)
    for number, card in enumerate(made, start=1):
        print(f"{number:2}. [{card['kind']}] {card['front']}\n    → {card['back']}")


def print_mindmap(paper, rows) -> None:
    tree = clean_tree(structure.mindmap(paper.filename, [(paper, rows)]))
    print(f"    root: {tree['title']}")
    nodes = [(node_id, node) for node_id, node, _, _ in walk(tree) if node_id != "r"]
    for number, (node_id, node) in enumerate(nodes, start=1):
        marker = f"{number:2}." if number <= PER_DOCUMENT else "   "
        print(f"{marker} {'  ' * node_id.count('.')}{node['title']}")


def print_lessons(paper, rows) -> None:
    for number, lesson in enumerate(lessons.cut([(paper, rows)], PER_DOCUMENT), start=1):
        also = f" (also: {', '.join(lesson['also'])})" if lesson["also"] else ""
        content = lesson["content"]
        body, _, check = content.partition("### Check yourself")
        opening = " ".join(body.split())[:400]
        print(f"{number:2}. {lesson['title']}{also} [{len(lesson['chunk_ids'])} chunks]")
        print(f"    {opening}")
        if check:
            print("    check: " + " / ".join(line for line in check.strip().splitlines() if line))


PRINTERS = {
    "quiz": print_quiz,
    "cards": print_cards,
    "mindmap": print_mindmap,
    "lessons": print_lessons,
}


def main() -> None:
    kinds = sys.argv[1:] or list(PRINTERS)
    for paper, rows in documents():
        for kind in kinds:
            print(f"\n## {kind}: {paper.filename} ({paper.format}, {len(rows)} chunks)\n")
            PRINTERS[kind](paper, rows)


if __name__ == "__main__":
    main()
