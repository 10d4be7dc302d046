"""A deck made of a file from another tool, told apart by its content: an Anki package (read
in the reading sandbox, apkg_reading.py) or a CSV file of fronts and backs (csv_files.py).
Nothing is kept of a file that yields no card, or more than a deck holds."""

from datetime import datetime
from pathlib import PurePath

from django.core.files.uploadedfile import UploadedFile

from apps.study import importing
from apps.study.errors import DeckError, ImportRefused
from apps.study.flashcards import csv_files
from apps.study.flashcards.decks import create_deck
from apps.study.flashcards.models import Deck

READER = "apps.study.flashcards.apkg_reading:read_deck"


def import_deck(owner, upload: UploadedFile, *, now: datetime) -> tuple[Deck, list, list[dict]]:
    """(the owner's new deck, badges just earned, what was left out: [{index, type, reason}]).
    ImportRefused says why a file made no deck."""
    head = upload.read(4)
    upload.seek(0)
    title = PurePath(upload.name or "").stem
    try:
        if head == b"PK\x03\x04":
            read = importing.read_upload(upload, READER)
            items, skipped, title = read["cards"], read["skipped"], read["title"] or title
        else:
            # One byte more than allowed is enough for parse_csv to refuse a large file.
            items, skipped = csv_files.parse_csv(upload.read(csv_files.MAX_CSV_BYTES + 1)), []
        # A deck holds at most Deck.MAX_CARDS: a file with more is refused whole (create_deck).
        deck, badges = create_deck(owner, title or "Imported deck", items, now=now)
    except DeckError as refusal:
        # The deck's rule says why; for the file, it is an import that made nothing (a 400,
        # as for a quiz's: docs/api.md).
        raise ImportRefused(str(refusal)) from None
    return deck, badges, skipped
