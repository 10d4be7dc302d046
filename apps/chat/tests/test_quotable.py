"""What an offline answer may quote of a passage: whole sentences as they stand, a term line
with the sentence that defines it, a sentence with the commands it introduces; never a question
heading, a bare heading or a sentence the chunk's end cuts off."""

import pytest

from apps.chat.evidence import best_sentences
from apps.chat.quotable import units
from apps.vault.tests.helpers import closed_port_url

OPTIONS = """2.4. OPTIONS
-k --keep
Keep (don't delete) input files during compression or decompression.
-s --small
Reduce memory usage, for compression, decompression and testing.
How to use bzip2
-1 (or --fast) to -9 (or -best)
Set the block size to 100 k, 200 k ... 900 k when compressing."""

FAQ = """1.7. Wie spricht man Debian aus und was bedeutet das?

Der Projektname wird im Englischen Deb'-ii-en ausgesprochen, mit einem kurzen »e« in Deb und
mit Betonung auf der ersten Silbe.

8.5. Wie kann ich herausfinden, welches Paket eine bestimmte Datei angelegt hat?

Um herauszufinden, aus welchem Paket eine bestimmte Datei stammt, führen Sie einen dieser
Befehle aus:

dpkg --search foo

Dies sucht nach foo in den installierten Paketen.

Um den Status aller installierten Pakete zu sehen, führen Sie den Befehl

dpkg --list

aus. Es wird eine einzeilige Zusammenfassung für jedes Paket ausgegeben, mit einem 2-stelligen
Buchstaben-Code und"""


def texts(text: str) -> list[str]:
    return [unit.text for unit in units(text)]


def test_a_term_line_is_quoted_with_the_sentence_that_defines_it():
    assert texts(OPTIONS)[:2] == [
        "-k --keep Keep (don't delete) input files during compression or decompression.",
        "-s --small Reduce memory usage, for compression, decompression and testing.",
    ]
    assert not any("How to use bzip2" in text for text in texts(OPTIONS))  # a running head


def test_a_question_heading_is_never_quoted_but_heads_the_sentence_that_answers_it():
    first = units(FAQ)[0]
    assert first.text.startswith("Der Projektname wird im Englischen Deb'-ii-en ausgesprochen")
    assert first.heading == "Wie spricht man Debian aus und was bedeutet das?"
    assert not any(text.endswith("?") for text in texts(FAQ))


def test_a_sentence_keeps_the_commands_it_introduces_and_its_closing_words():
    found = texts(FAQ)
    assert (
        "Um herauszufinden, aus welchem Paket eine bestimmte Datei stammt, führen Sie einen "
        "dieser Befehle aus: dpkg --search foo" in found
    )
    assert (
        "Um den Status aller installierten Pakete zu sehen, führen Sie den Befehl dpkg --list aus."
        in found
    )


def test_a_sentence_cut_off_by_the_chunks_end_is_not_quoted():
    assert not any(text.startswith("Es wird eine einzeilige") for text in texts(FAQ))
    assert not any(text.startswith("of the file") for text in texts("of the file as it was.\n"))


def test_a_sentence_begun_in_the_chunk_before_is_not_quoted():
    chunk = "Basissystem zur Verfügung gestellt wird, bietet Debian mehr.\nDas ist ein Satz hier."
    begun = "Indem ein zuverlässiges, voll ausgestattetes\n"
    assert texts_after(chunk, begun) == ["Das ist ein Satz hier."]
    assert len(texts_after(chunk, "Hier endet ein Satz.\n")) == 2
    assert len(texts_after(chunk, "")) == 2  # the document's start
    # The chunk repeats the end of the one before: what precedes that decides.
    assert len(texts_after(chunk, f"Hier endet ein Satz.\n{chunk.splitlines()[0]}\n")) == 2
    assert texts_after(chunk, f"{begun}{chunk.splitlines()[0]}\n") == ["Das ist ein Satz hier."]


def texts_after(chunk: str, before: str) -> list[str]:
    return [unit.text for unit in units(chunk, before)]


def test_every_unit_stands_in_its_chunk_as_it_is():
    for chunk in (OPTIONS, FAQ):
        flat = " ".join(chunk.split())
        for unit in units(chunk):
            assert unit.text == " ".join(chunk[unit.start : unit.end].split())
            assert unit.text in flat


def citation(number: int, text: str) -> dict:
    return {"number": number, "chunk_id": number, "document_id": 1, "filename": "m.pdf"} | {
        "page": None,
        "section": "",
        "text": text,
        "score": 0.0,
    }


@pytest.mark.django_db
def test_what_an_option_does_is_answered_by_its_definition_without_embeddings(settings):
    settings.EMBEDDING_BACKEND, settings.OLLAMA_HOST = "ollama", closed_port_url()
    settings.OLLAMA_RETRIES = 0
    quotes = best_sentences("What does the -k option do?", [citation(1, OPTIONS)])
    assert quotes[0].text.startswith("-k --keep Keep (don't delete) input files")
    quotes = best_sentences("Wie spricht man Debian aus?", [citation(1, FAQ)])
    assert quotes[0].text.startswith("Der Projektname wird im Englischen Deb'-ii-en")


def test_a_sentence_that_points_back_is_quoted_with_the_sentence_it_points_to():
    cell = (
        "Die Mitochondrien sind die Kraftwerke der Zelle.\n"
        "In ihnen findet die Zellatmung statt, bei der Energie frei wird.\n"
        "Ribosomen bauen aus Aminosäuren Proteine auf."
    )

    assert texts(cell) == [
        "Die Mitochondrien sind die Kraftwerke der Zelle. In ihnen findet die Zellatmung statt, "
        "bei der Energie frei wird.",
        "Ribosomen bauen aus Aminosäuren Proteine auf.",
    ]
