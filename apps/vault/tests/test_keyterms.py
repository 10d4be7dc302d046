"""Sentences and key terms: spans of the chunk, English and German, identifiers kept whole."""

from apps.vault.blanks import distractors
from apps.vault.cloze import clozes, key_sentences
from apps.vault.keyterms import Kind, Vocabulary, same_family, tokens
from apps.vault.sentences import fold, sentences

TEXT = """[Section: Guide > Errors]
BZ_OUTBUFF_FULL is returned when the output buffer is full. See § 3 and §12a, e.g. the
appendix. Reciprocal Rank Fusion (RRF) uses k = 60. Die Prüfungsordnung gilt ab 1. Mai 2024.
Sie regelt z.B. die Fristen der
Prüfung.

Glossary
- BM25: a ranking function over term frequencies.
Ribosom | Proteinsynthese
"""


def spans(text: str) -> list[str]:
    return [text[span.start : span.end] for span in sentences(text)]


def test_sentences_are_spans_in_english_and_german():
    assert spans(TEXT) == [
        "BZ_OUTBUFF_FULL is returned when the output buffer is full.",
        "See § 3 and §12a, e.g. the\nappendix.",
        "Reciprocal Rank Fusion (RRF) uses k = 60.",
        "Die Prüfungsordnung gilt ab 1. Mai 2024.",
        "Sie regelt z.B. die Fristen der\nPrüfung.",
        "Glossary",
        "BM25: a ranking function over term frequencies.",
        "Ribosom | Proteinsynthese",
    ]


def test_a_wrapped_short_line_is_no_heading():
    text = "Mitochondrien sind die Kraftwerke der Zelle. Sie\nerzeugen Energie in Form von ATP."
    assert spans(text)[1] == "Sie\nerzeugen Energie in Form von ATP."


def test_identifiers_numbers_and_names_are_kept_whole_with_their_kind():
    found = {(o.surface, o.kind) for o in tokens(TEXT)}
    assert ("BZ_OUTBUFF_FULL", Kind.IDENTIFIER) in found
    assert ("§ 3", Kind.IDENTIFIER) in found and ("§12a", Kind.IDENTIFIER) in found
    assert ("RRF", Kind.IDENTIFIER) in found and ("BM25", Kind.IDENTIFIER) in found
    assert ("2024", Kind.NUMBER) in found
    assert ("Reciprocal Rank Fusion", Kind.NAME) in found
    assert not {o.surface for o in tokens(TEXT)} & {"e.g", "z.B", "the", "die"}


def test_case_and_inflection_variants_are_one_family():
    assert same_family("Zelle", "Zellen") and same_family("index", "Index")
    assert same_family("Mitochondrion", "Mitochondrien") and same_family("Prüfung", "PRUEFUNG")
    assert not same_family("Chlorophyll", "Chloroplasten")
    assert not same_family("BM25", "RRF")
    assert fold("Straße") == "strasse"


def test_wrong_answers_are_of_the_same_kind_and_never_the_answer():
    texts = {
        1: "BM25 ranks passages. RRF fuses rankings. FAISS searches vectors. Zellen teilen sich.",
        2: "The index holds BM25 weights and FAISS vectors. The Zelle is small. HNSW is a graph.",
        3: "Die Zellen und die Zelle. Die Mitochondrien der Zelle. Mitochondrion im Plural.",
    }
    vocabulary = Vocabulary(texts)
    bm25 = vocabulary.get("bm25")
    others = distractors(vocabulary, bm25, limit=3)
    assert len(others) == 3 and all(o.kind is Kind.IDENTIFIER for o in others)
    assert "bm25" not in {o.key for o in others}
    zelle = vocabulary.get("zelle")
    assert not any(same_family(o.surface, "Zelle") for o in distractors(vocabulary, zelle))


def test_a_cloze_leaves_out_a_key_term_of_the_sentence():
    vocabulary = Vocabulary({1: TEXT, 2: "RRF and BM25 are both ranking methods in search."})
    cloze = next(clozes(1, TEXT, vocabulary))
    assert cloze.answer.surface in cloze.text and cloze.text in TEXT
    assert "_____" in cloze.replaced("_____") and cloze.answer.surface not in cloze.replaced("_")


def test_a_chunk_begun_or_cut_mid_sentence_offers_no_half_sentence_to_ask_about():
    # The splitter cuts a PDF's text at line breaks, and the lines wrap mid-sentence.
    text = (
        "clear directions next to the object code saying where to find the\n"
        "Corresponding Source. Regardless of what server hosts the Corresponding\n"
        "Source, you remain obligated to ensure that it is available for as long\n"
        "as needed to satisfy the requirements. If the place to copy the object\n"
        "code is a network server, the Corresponding Source may be on a different"
    )
    vocabulary = Vocabulary({1: text, 2: "The object code and the Corresponding Source."})
    asked = [text[span.start : span.end] for span, _ in key_sentences(1, text, vocabulary)]
    assert asked == [
        "Regardless of what server hosts the Corresponding\nSource, you remain obligated to "
        "ensure that it is available for as long\nas needed to satisfy the requirements."
    ]


def test_no_blank_in_a_sentence_that_points_back_or_in_a_set_phrase():
    earlier = "Die Mitochondrien sind die Kraftwerke der Zelle. "
    pointing = "In ihnen findet die Zellatmung statt, die den Zellen Energie liefert."
    phrase = "Rote Blutzellen transportieren Sauerstoff mit Hilfe von Hämoglobin im Blut."
    text = earlier + pointing + " " + phrase
    others = "Die Zellatmung braucht Sauerstoff und die Hilfe der Enzyme im Blut."
    vocabulary = Vocabulary({1: text, 2: others, 3: others})

    asked = {text[span.start : span.end] for span, _ in key_sentences(1, text, vocabulary)}
    blanks = {cloze.answer.surface for cloze in clozes(1, text, vocabulary)}

    assert pointing not in asked
    assert "Hilfe" not in blanks
