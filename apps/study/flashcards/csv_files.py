"""Decks as CSV files, both ways; cells that look like formulas are quoted on the way out."""

import csv
import io

from apps.study.errors import DeckError
from apps.study.flashcards.decks import clean_cards
from apps.study.flashcards.models import Deck

MAX_CSV_BYTES = 1_000_000
# Spreadsheet programs run a cell that starts like a formula; exports quote such cells with
# a leading apostrophe and imports take it off again, so the round trip is lossless.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def protect_cell(text: str) -> str:
    return "'" + text if text.startswith(FORMULA_STARTS) or text.startswith("'") else text


def unprotect_cell(text: str) -> str:
    return (
        text[1:]
        if text.startswith("'") and text[1:2] and text[1:].startswith((*FORMULA_STARTS, "'"))
        else text
    )


def export_csv(deck: Deck) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["front", "back"])
    for card in deck.cards.all():
        writer.writerow([protect_cell(card.front), protect_cell(card.back)])
    return out.getvalue()


# A first row that names the two columns (ours, Quizlet's and Anki's words, in the languages a
# class writes in) is a header, not a card.
HEADERS = {
    ("front", "back"),
    ("question", "answer"),
    ("term", "definition"),
    ("word", "meaning"),
    ("vorderseite", "rückseite"),
    ("frage", "antwort"),
    ("begriff", "erklärung"),
    ("begriff", "definition"),
    ("wort", "bedeutung"),
    ("recto", "verso"),
    ("question", "réponse"),
    ("terme", "définition"),
    ("pregunta", "respuesta"),
    ("término", "definición"),
}


def parse_csv(data: bytes) -> list[dict]:
    """Two columns, front and back (a header row is optional); comma, semicolon or tab."""
    if len(data) > MAX_CSV_BYTES:
        raise DeckError("The CSV file is larger than 1 MB.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise DeckError("The CSV file is not UTF-8 text.") from error
    if "\x00" in text:
        raise DeckError("The file is not a CSV text file.")
    first_line = text.split("\n", 1)[0]
    delimiter = max(",;\t", key=first_line.count)
    try:
        rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    except csv.Error as error:
        raise DeckError(f"The CSV file cannot be read: {error}.") from error
    if rows and tuple(cell.strip().casefold() for cell in rows[0][:2]) in HEADERS:
        rows = rows[1:]
    items = [
        {"front": unprotect_cell(row[0]), "back": unprotect_cell(row[1])}
        for row in rows
        if len(row) >= 2
    ]
    cards = clean_cards(items)
    if not cards:
        raise DeckError("No cards found: each line needs a front and a back, e.g. `front,back`.")
    return cards
