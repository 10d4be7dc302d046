"""Offline cards and mindmaps over real documents (bench/retrieval_eval/: Debian manuals in
English and German, made as PDF, HTML, Markdown, DOCX and plain text): a card's front and back
stand in one sentence of the chunk it cites, and no two branches of a mindmap show the same
children (docs/study-hub.md, "Offline items, judged")."""

import re

import pytest

from apps.study.extractive import cards, structure
from apps.study.stale import says
from apps.vault.cloze import BLANK
from apps.vault.keyterms import Vocabulary
from apps.vault.sentences import fold, sentences

from .real import document, sources

DOCUMENTS = [
    ("dpkg.de.txt", "pdf"),
    ("libffi.en.html", "html"),
    ("apt-get.de.txt", "md"),
    ("users-and-groups.en.txt", "docx"),
    ("sources.list.de.txt", "txt"),
]
# Inside one sentence no sentence ends: no full stop before a word (but after an abbreviation of
# single letters, "d.h. wir", "e.g. the"), no semicolon, no colon before a list on the next line.
INNER_END = re.compile(r"(?<!\b\w)[.!?;]\s+\S|:\s*\n")


@pytest.fixture(scope="module")
def documents():
    return [document(name, kind, first_id=10_000 * n) for n, (name, kind) in enumerate(DOCUMENTS)]


def flat(text: str) -> str:
    return " ".join(text.split())


def sentence_holding(text: str, *parts: str) -> str | None:
    """The sentence of the chunk (its own words, with its line breaks) that holds every part."""
    for span in sentences(text):
        sentence = text[span.start : span.end]
        if all(fold(flat(part)) in fold(flat(sentence)) for part in parts):
            return sentence
    return None


def opens_a_line(sentence: str, front: str) -> bool:
    """The term begins the sentence (after an article) or a line of it: a definition list's
    entry, whose name stands on the line above."""
    article = r"(?:(?:the|a|an|der|die|das|ein|eine)\s+)?"
    return any(
        re.match(article + re.escape(front) + r"(?!\w)", flat(line), re.IGNORECASE)
        for line in [sentence, *sentence.splitlines()[1:]]
    )


def test_every_card_stands_in_one_sentence_of_the_chunk_it_cites(documents):
    checked = 0
    for paper, rows in documents:
        texts = {row.chunk_id: row.text for row in rows}
        made = cards.cards(sources(paper, rows), Vocabulary(texts), count=30)
        # A manual of prose about accounts ("this user and group …") says few facts alone.
        assert len(made) >= 5, paper.filename
        for card in made:
            text, front, back = texts[card["chunk_id"]], card["front"], card["back"]
            where = f"{paper.filename}: {front} → {back}"
            assert says(text, back), where
            if card["kind"] == "cloze":
                said = front.replace(BLANK, back)
                assert sentence_holding(text, said) and not INNER_END.search(said), where
            elif card["kind"] == "definition":
                sentence = sentence_holding(text, front, back)
                assert sentence and opens_a_line(sentence, front), where
                assert not INNER_END.search(back), where
            checked += 1
    assert checked >= 100


def children_of_branches(tree: dict) -> list[list[str]]:
    """The children of every node whose children are all leaves: the key terms of a section."""
    found = []
    children = tree.get("children", [])
    if children and all(not child.get("children") for child in children):
        found.append([fold(child["title"]) for child in children])
    for child in children:
        found += children_of_branches(child)
    return found


def repeated_children(tree: dict) -> set[str]:
    labels = [label for children in children_of_branches(tree) for label in children]
    return {label for label in labels if labels.count(label) > 1}


def test_no_two_branches_of_a_documents_mindmap_show_the_same_child(documents):
    for paper, rows in documents:
        tree = structure.mindmap(paper.filename, [(paper, rows)])
        assert len(children_of_branches(tree)) >= 2, paper.filename
        assert not repeated_children(tree), paper.filename


def test_a_mindmap_of_several_documents_repeats_no_child_within_one(documents):
    # Two manuals may both have a section "Fehler"; within one, no branch repeats another's.
    tree = structure.mindmap("Manuals", documents)
    assert len(tree["children"]) == len(documents)
    for node in tree["children"]:
        assert not repeated_children(node), node["title"]
