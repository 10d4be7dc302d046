"""Prints the offline study items a teacher judges (docs/study-hub.md, "Offline items, judged"):
the first 10 extractive flashcards and the first 10 mindmap nodes under a branch (a section's
key terms) of each of three real documents, made as the Study Hub makes them without a model;
every branch with its children follows, to see repeats.

The documents: the bzip2 manual (manual.pdf of Debian's bzip2 package, no outline, when it is
installed; else dpkg(1) in German as a PDF), the libffi manual (HTML) and apt-get(8) in German
(Markdown), both from bench/retrieval_eval/. Every chunk of a document is a passage and weighs
the key terms, as a deck of the whole document would.

    .venv/bin/python bench/judge_extractive.py [cards|mindmap]
"""

import gzip
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["DATA_DIR"] = tempfile.mkdtemp(prefix="bench-judge-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cognivault_site.settings")

import django  # noqa: E402

django.setup()

from apps.study.extractive import cards, structure  # noqa: E402
from apps.study.extractive.tests import real  # noqa: E402
from apps.study.mindmaps.tree import clean_tree  # noqa: E402
from apps.vault.keyterms import Vocabulary  # noqa: E402
from apps.vault.readers import extract  # noqa: E402

BZIP2_MANUAL = Path("/usr/share/doc/bzip2/manual.pdf.gz")
PER_DOCUMENT = 10


def bzip2_manual(first_id: int):
    if not BZIP2_MANUAL.exists():
        return real.document("dpkg.de.txt", "pdf", first_id)
    path = Path(os.environ["DATA_DIR"]) / "bzip2-manual.pdf"
    path.write_bytes(gzip.decompress(BZIP2_MANUAL.read_bytes()))
    found = [unit.as_dict() for unit in extract(path, "pdf")["units"]]
    return real.Paper("bzip2-manual.pdf", "pdf", path), real.rows_of(found, first_id)


def documents():
    return [
        bzip2_manual(1),
        real.document("libffi.en.html", "html", 10_000),
        real.document("apt-get.de.txt", "md", 20_000),
    ]


def print_cards(paper, rows) -> None:
    vocabulary = Vocabulary({row.chunk_id: row.text for row in rows})
    made = cards.cards(real.sources(paper, rows), vocabulary, count=PER_DOCUMENT)
    for number, card in enumerate(made, start=1):
        print(f"{number:2}. [{card['kind']}] {card['front']}\n    → {card['back']}")


def print_mindmap(paper, rows) -> None:
    tree = clean_tree(structure.mindmap(paper.filename, [(paper, rows)]))
    branches = []

    def visit(node: dict, path: str) -> None:
        children = node.get("children", [])
        if children and all(not child.get("children") for child in children):
            branches.append((path, [child["title"] for child in children]))
        for child in children:
            visit(child, f"{path} / {child['title']}" if path else child["title"])

    visit(tree, "")
    nodes = [(path, child) for path, children in branches for child in children]
    for number, (path, child) in enumerate(nodes[:PER_DOCUMENT], start=1):
        print(f"{number:2}. {path} → {child}")
    for path, children in branches:
        print(f"    {path}: {' · '.join(children)}")


def main() -> None:
    kinds = sys.argv[1:] or ["cards", "mindmap"]
    for paper, rows in documents():
        for kind in kinds:
            print(f"\n## {kind}: {paper.filename} ({paper.format}, {len(rows)} chunks)\n")
            (print_cards if kind == "cards" else print_mindmap)(paper, rows)


if __name__ == "__main__":
    main()
