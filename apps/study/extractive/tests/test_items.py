"""Questions, cards, lessons and outlines cut from passages: verbatim, cited, no repeats."""

import pytest

from apps.study.extractive import cards, lessons, quizzes
from apps.study.retrieval import Source
from apps.study.stale import says
from apps.vault.keyterms import Vocabulary, same_family

TEXTS = [
    "BM25 is a ranking function that scores passages by term frequency. The tokenizer keeps "
    "identifiers like BZ_OUTBUFF_FULL whole. Reciprocal Rank Fusion combines two rankings.",
    "FAISS is a library for similarity search over dense vectors. HNSW is a graph index for "
    "approximate search. The dense retriever uses an exact inner product.",
    "Mitochondrien sind die Kraftwerke der Zelle. Chloroplasten enthalten Chlorophyll, das "
    "rotes und blaues Licht absorbiert. Die Photosynthese wandelt Lichtenergie um.",
    "Glossary\nChunk: a piece of a document of about 1000 characters.\n"
    "Scope – the categories and documents a quiz draws from.",
    "Organell | Funktion\nRibosom | Proteinsynthese\nGolgi | Sortierung",
    "Der Index ist eine Tabelle aller Begriffe. Enzyme sind Proteine, die Reaktionen "
    "beschleunigen. Stemming is not used here at all, as the tokenizer explains.",
]
SOURCES = [Source(i + 1, i // 2 + 1, f"f{i // 2}.txt", None, "", t) for i, t in enumerate(TEXTS)]


@pytest.fixture
def vocabulary():
    return Vocabulary({source.chunk_id: source.text for source in SOURCES})


def text_of(chunk_id: int) -> str:
    return TEXTS[chunk_id - 1]


def test_questions_cite_their_sentence_and_offer_other_terms_of_its_kind(vocabulary):
    made = quizzes.questions(SOURCES, vocabulary, count=8)
    assert len(made) >= 6
    assert len({q["question"] for q in made}) == len(made)
    for question in made:
        [chunk_id] = question["chunk_ids"]
        assert question["explanation"] in text_of(chunk_id)
        answer = question["options"][question["correct_index"]]
        if question["type"] == "mcq":
            assert answer in question["explanation"] and answer not in question["question"]
            wrong = [o for o in question["options"] if o != answer]
            assert len(wrong) == 3 and not any(same_family(w, answer) for w in wrong)
            assert not any(w.casefold() in question["explanation"].casefold() for w in wrong)


def test_only_the_asked_kinds_are_made(vocabulary):
    assert {q["type"] for q in quizzes.questions(SOURCES, vocabulary, count=5, types=["mcq"])} == {
        "mcq"
    }
    true_false = quizzes.questions(SOURCES, vocabulary, count=5, types=["true_false"])
    assert true_false and {q["options"][0] for q in true_false} == {"True"}


def test_the_same_material_gives_the_same_quiz(vocabulary):
    assert quizzes.questions(SOURCES, vocabulary, count=5) == quizzes.questions(
        SOURCES, vocabulary, count=5
    )


def test_cards_define_terms_in_english_and_german_with_a_verbatim_back(vocabulary):
    made = cards.cards(SOURCES, vocabulary, count=20)
    pairs = {card["front"]: card["back"] for card in made}
    assert pairs["BM25"] == "a ranking function that scores passages by term frequency"
    assert pairs["Mitochondrien"] == "die Kraftwerke der Zelle"
    assert pairs["Chunk"] == "a piece of a document of about 1000 characters"
    assert pairs["Scope"] == "the categories and documents a quiz draws from"
    assert pairs["Ribosom"] == "Proteinsynthese" and "Organell" not in pairs  # the header
    assert pairs["Index"] == "eine Tabelle aller Begriffe"
    assert "Stemming" not in pairs  # "is not": no definition
    for card in made:
        assert says(text_of(card["chunk_id"]), card["back"])
    assert len({card["front"].casefold() for card in made}) == len(made)


def test_a_cards_back_is_one_line_where_the_pdf_wrapped_its_sentence():
    wrapped = Source(1, 1, "desert.pdf", 1, "", "The Atacama is a desert in Chile that gets\n"
                     "less than one millimetre of rain\nper year in many places.")  # fmt: skip
    vocabulary = Vocabulary({1: wrapped.text})

    made = {card["front"]: card["back"] for card in cards.cards([wrapped], vocabulary, count=5)}

    assert made["Atacama"] == (
        "a desert in Chile that gets less than one millimetre of rain per year in many places"
    )


def cards_of(text: str, weighted: str) -> list[dict]:
    """The cards cut from one chunk of a manual page, `weighted` words counting as its terms."""
    source = Source(1, 1, "apt-get.txt", None, "", text)
    return cards.cards([source], Vocabulary({1: f"{text} {weighted}"}), count=10)


def test_a_web_address_on_a_line_of_its_own_is_no_glossary_entry():
    # The footnotes of a manual page: "http" is not a term whose definition is
    # "//bugs.debian.org/src:apt", nor "Dir" one whose definition is ":Cache::Archives".
    text = (
        "FUSSNOTEN\n 1. APT-Fehlerseite\n    http://bugs.debian.org/src:apt\n"
        "    Dir::Cache::Archives\n    Archive: the directory where downloaded packages wait."
    )
    made = cards_of(text, "http Dir Dir Archive Archive packages")
    pairs = {card["front"]: card["back"] for card in made}
    assert "http" not in pairs and "Dir" not in pairs
    assert pairs["Archive"] == "the directory where downloaded packages wait"


def test_a_german_sentence_that_puts_an_adverb_first_is_no_definition():
    # "Standardmäßig ist sie nicht gesetzt": the verb comes second in German, after whatever
    # leads, and the subject follows it. Only "X ist ein/eine/der … Y" defines X.
    text = (
        "Standardmäßig ist sie nicht gesetzt, was bedeutet, dass die Architektur gleich bleibt. "
        "Manchmal sind sie schneller als erwartet und laden weniger Pakete. "
        "Der Paketindex ist eine Liste aller verfügbaren Pakete einer Quelle."
    )
    made = cards_of(text, "Standardmäßig Manchmal Paketindex Paketindex")
    pairs = {card["front"]: card["back"] for card in made}
    assert "Standardmäßig" not in pairs and "Manchmal" not in pairs
    assert pairs["Paketindex"] == "eine Liste aller verfügbaren Pakete einer Quelle"


def test_a_command_synopsis_with_pipes_is_no_table():
    # apt-get(8): "|" separates alternatives; a table row is "a | b" or "| a | b |".
    text = (
        "apt-get {update | upgrade |\n"
        "        install Paket...  |\n"
        "        remove Paket...  | purge Paket...  |\n"
        "        source Paket [{=Paketversionsnummer | /Ziel-Release}]...  |\n"
        "        check | clean}\n\n"
        "| Befehl | Wirkung |\n|---|---|\n| check | prüft den Paketzwischenspeicher |"
    )
    made = [
        card
        for card in cards_of(text, "Paket Paket purge purge check check")
        if card["kind"] == "table"
    ]
    assert [(card["front"], card["back"]) for card in made] == [
        ("check", "prüft den Paketzwischenspeicher")
    ]


def test_cloze_cards_fill_up_after_the_definitions(vocabulary):
    made = cards.cards(SOURCES, vocabulary, count=20)
    kinds = [card["kind"] for card in made]
    assert "cloze" in kinds and kinds.index("cloze") > kinds.index("definition")
    for card in made:
        if card["kind"] == "cloze":
            assert "_____" in card["front"] and says(text_of(card["chunk_id"]), card["back"])


def test_a_lesson_is_the_passages_with_key_terms_marked_and_a_check(vocabulary):
    content = lessons.lesson(SOURCES[:3], vocabulary)
    assert "**BM25**" in content or "**FAISS**" in content
    assert "BZ\\_OUTBUFF\\_FULL" in content  # Markdown-escaped, not italics
    assert "### Check yourself" in content and "Answers: 1." in content
    assert content.count("*— f0.txt*") == 2


def test_a_lesson_of_two_passages_checks_three_sentences(vocabulary):
    content = lessons.lesson(SOURCES[:2], vocabulary)
    answers = content.rsplit("Answers: ", 1)[1]
    assert [part.split(". ", 1)[0] for part in answers.split(" · ")] == ["1", "2", "3"]


def test_overlapping_chunks_are_not_repeated():
    previous = "x" * 50 + "the shared tail of twenty-five chars"
    assert lessons.without_overlap(previous, "the shared tail of twenty-five chars and more") == (
        "and more"
    )


def test_a_sentence_about_a_term_in_context_is_no_definition():
    # bzip2's manual: "the first five actions" points back to a list, "normal and not intended
    # …" says something about them; a card needs a term and what it is.
    text = (
        "The first five actions are normal and not intended to denote an error situation. "
        "If no file names are specified, bzip2 compresses from standard input. "
        "The result is the concatenation of the corresponding uncompressed files. "
        "Compression is generally considerably better than that achieved by LZ77.\n"
        "bzip2 is built on top of libbzip2, a library for handling compressed data. "
        "libbzip2 is a flexible library for compressing and decompressing data."
    )
    made = cards_of(text, "actions actions names names result result Compression libbzip2")
    definitions = {c["front"]: c["back"] for c in made if c["kind"] == "definition"}
    assert definitions == {"libbzip2": "a flexible library for compressing and decompressing data"}


def test_a_definition_lists_entry_is_carded_by_its_name_once():
    # A manual's definition list: the entry's name on a line, the sentence that begins with
    # it below; a heading above a sentence is no part of its term.
    text = (
        "reinstall\n    reinstall ist ein Alias für install --reinstall.\n\n"
        "Top-level structure\nlibbzip2 is a flexible library for compressing data."
    )
    made = cards_of(text, "reinstall reinstall libbzip2 libbzip2 structure")
    pairs = {card["front"]: card["back"] for card in made if card["kind"] == "definition"}
    assert pairs == {
        "reinstall": "ein Alias für install --reinstall",
        "libbzip2": "a flexible library for compressing data",
    }
