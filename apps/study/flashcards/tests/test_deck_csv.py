"""A deck as a CSV file, as a spreadsheet or another flashcard tool writes and reads it: quotes,
line breaks and formulas kept as text, the delimiters Excel uses, a header row in other words."""

from datetime import UTC, datetime

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.study.errors import DeckError
from apps.study.flashcards import csv_files
from apps.study.flashcards import decks as deck_making
from apps.study.models import Deck

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.mark.django_db
def test_csv_export_and_import_round_trip_with_quotes_newlines_and_formulas(alice):
    items = [
        {"front": 'Was ist "ATP"?', "back": "Energie,\nWährung der Zelle"},
        {"front": "=1+1", "back": "-2 ist kein Ergebnis"},
        {"front": "'quoted", "back": "@home 🌱"},
    ]
    deck, _badges = deck_making.create_deck(alice, "CSV", items, now=NOW)
    exported = csv_files.export_csv(deck)
    assert "\n'=1+1," in exported  # a spreadsheet shows it as text, never runs it
    parsed = csv_files.parse_csv(exported.encode())
    assert [(c["front"], c["back"]) for c in parsed] == [(i["front"], i["back"]) for i in items]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "No cards found"),
        (b"front,back\n", "No cards found"),
        (b"only one column\n", "No cards found"),
        (b"\xff\xfe\x00bad", "not UTF-8"),
        (b"a,b\x00\n", "not a CSV"),
        (b"x" * (csv_files.MAX_CSV_BYTES + 1), "larger than 1 MB"),
    ],
)
def test_a_bad_csv_gets_a_clear_message(data, message):
    with pytest.raises(DeckError, match=message):
        csv_files.parse_csv(data)


def test_csv_import_takes_semicolons_tabs_and_a_bom():
    assert csv_files.parse_csv("\ufeffFront;Back\nHund;dog\n".encode())[0]["back"] == "dog"
    assert csv_files.parse_csv(b"Katze\tcat\n")[0] == {
        "front": "Katze",
        "back": "cat",
        "chunk_id": None,
    }


@pytest.mark.parametrize(
    "names", [("Begriff", "Erklärung"), ("Term", "Definition"), ("Question", "Answer")]
)
@pytest.mark.parametrize("delimiter", [",", ";", "\t"])
def test_a_first_row_naming_the_two_columns_is_no_card(names, delimiter):
    text = f"{delimiter.join(names)}\nMitose{delimiter}Kernteilung\n"

    cards = csv_files.parse_csv(text.encode())

    assert [(card["front"], card["back"]) for card in cards] == [("Mitose", "Kernteilung")]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "No cards found"),
        (b"\xff\xfe\x00bad", "not UTF-8"),
        ("".join(f"Frage {i},Antwort {i}\n" for i in range(201)).encode(), "at most 200 cards"),
    ],
)
def test_an_imported_csv_that_makes_no_deck_is_a_400_saying_why(alice_client, data, message):
    """An import answers 201, or 400 with why nothing was made (docs/api.md), as for a quiz."""
    upload = SimpleUploadedFile("karten.csv", data)

    response = alice_client.post("/api/v1/study/decks/import", {"file": upload})

    assert response.status_code == 400
    assert message in response.json()["detail"]
    assert not Deck.objects.exists()
