"""An Anki package (.apkg) someone sends, read in the reading sandbox's child process
(`run_isolated(path, "apps.study.flashcards.apkg_reading:read_deck")`): each note's first two
fields as a card (a note with a reversed card gives that card too; a cloze note's deletions are
hidden on the front and shown on the back), the pictures its fields show, and the deck's name.
Review history is left behind: the cards start new here.

The package is a zip of a SQLite collection (`collection.anki21`, or `collection.anki2` from
older versions), a `media` map of numbered files to names, and the numbered files.
"""

import json
import re
import sqlite3
import tempfile
from pathlib import Path

from apps.study.untrusted_files import (
    MAX_PICTURE_BYTES,
    Pictures,
    UnreadableFile,
    html_text,
    open_zip,
    read_entry,
)

WHAT = "Anki package"
MAX_COLLECTION_BYTES = 100 * 1024 * 1024
MAX_MEDIA_MAP_BYTES = 5 * 1024 * 1024
MAX_NOTES = 20_000
FIELD_SEPARATOR = "\x1f"
SOUND = re.compile(r"\[sound:[^\]]*\]")
CLOZE = re.compile(r"\{\{c\d+::(.*?)(?:::(.*?))?\}\}", re.S)


def collection_name(names: set[str]) -> str:
    """The collection to read. A package in Anki's newest format (zstd-compressed) also holds
    a `collection.anki2` whose one note says to update Anki: that one is not the deck."""
    if "collection.anki21" in names:
        return "collection.anki21"
    if "collection.anki21b" in names:
        raise UnreadableFile(
            "This deck is in the newest Anki package format: in Anki, export it again with "
            "“Support older Anki versions” ticked."
        )
    if "collection.anki2" in names:
        return "collection.anki2"
    raise UnreadableFile("This zip file is not an Anki package: it holds no collection.")


def note_types_and_decks(db: sqlite3.Connection) -> tuple[dict[int, str], dict[int, str]]:
    """{note type id: name}, {deck id: name} of either collection schema."""
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "notetypes" in tables:
        note_types = dict(db.execute("SELECT id, name FROM notetypes"))
        decks = dict(db.execute("SELECT id, name FROM decks"))
    else:
        models_json, decks_json = db.execute("SELECT models, decks FROM col").fetchone()
        note_types = {int(k): v.get("name", "") for k, v in json.loads(models_json).items()}
        decks = {int(k): v.get("name", "") for k, v in json.loads(decks_json).items()}
    return note_types, decks


def side(field: str, pictures: Pictures) -> tuple[str, list[str]]:
    text, sources = html_text(SOUND.sub("", field))
    return text, pictures.uris(sources)


def cards_of(db: sqlite3.Connection, pictures: Pictures) -> tuple[list[dict], list[dict], int]:
    """(cards, skipped notes, the deck most cards are in)."""
    note_types, decks = note_types_and_decks(db)
    reversed_notes = {nid for (nid,) in db.execute("SELECT nid FROM cards WHERE ord = 1")}
    deck_counts = db.execute("SELECT did, count(*) FROM cards GROUP BY did ORDER BY 2 DESC")
    main_deck = next(iter(deck_counts), (None, 0))[0]
    cards, skipped = [], []
    rows = db.execute("SELECT id, mid, flds FROM notes ORDER BY id LIMIT ?", (MAX_NOTES,))
    for index, (nid, mid, fields_text) in enumerate(rows, 1):
        fields = fields_text.split(FIELD_SEPARATOR)
        kind = note_types.get(mid, "note")
        if len(fields) < 2:
            skipped.append({"index": index, "type": kind, "reason": "it has one field"})
            continue
        (front, front_pictures), (back, back_pictures) = (side(f, pictures) for f in fields[:2])
        if CLOZE.search(front):  # the deletions hidden on the front, shown on the back
            front, back = hidden(front), "\n\n".join(filter(None, [CLOZE.sub(r"\1", front), back]))
        if not front or not back:
            reason = "its first two fields are not both filled"
            skipped.append({"index": index, "type": kind, "reason": reason})
            continue
        cards.append(card(front, back, front_pictures, back_pictures))
        if nid in reversed_notes and not CLOZE.search(fields[0]):  # a cloze's cards are gaps
            cards.append(card(back, front, back_pictures, front_pictures))
    return cards, skipped, decks.get(main_deck, "")


def hidden(text: str) -> str:
    """A cloze note's text with each deletion as its hint, or "[…]"."""
    return CLOZE.sub(lambda deletion: f"[{deletion.group(2) or '…'}]", text)


def card(front: str, back: str, front_pictures: list[str], back_pictures: list[str]) -> dict:
    pictures = {"front": front_pictures, "back": back_pictures}
    return {"front": front, "back": back, "pictures": {k: v for k, v in pictures.items() if v}}


def media_of(archive, names: set[str]) -> Pictures:
    """The package's pictures by the name its fields use."""
    pictures = Pictures()
    if "media" not in names:
        return pictures
    try:
        numbered = json.loads(read_entry(archive, "media", MAX_MEDIA_MAP_BYTES, WHAT) or b"{}")
    except ValueError:
        return pictures  # a damaged map: the cards come without their pictures
    for number, name in numbered.items() if isinstance(numbered, dict) else ():
        if str(number) in names and isinstance(name, str):
            try:
                pictures.by_name[name] = read_entry(archive, str(number), MAX_PICTURE_BYTES, WHAT)
            except UnreadableFile:
                continue  # too large to be a picture shown here
    return pictures


def read_deck(path: Path, progress=None, **options) -> dict:
    """{"title", "cards": [{front, back, pictures}], "skipped": [{index, type, reason}]}."""
    with open_zip(path, WHAT) as archive, tempfile.TemporaryDirectory() as folder:
        names = set(archive.namelist())
        collection = Path(folder) / "collection.sqlite"
        name = collection_name(names)
        collection.write_bytes(read_entry(archive, name, MAX_COLLECTION_BYTES, WHAT))
        pictures = media_of(archive, names)
        try:
            db = sqlite3.connect(f"file:{collection}?mode=ro&immutable=1", uri=True)
            with db:
                cards, skipped, title = cards_of(db, pictures)
            db.close()
        except (sqlite3.DatabaseError, ValueError, KeyError, TypeError):
            raise UnreadableFile(f"The {WHAT}'s collection is damaged.") from None
    return {"units": [], "title": title.split("::")[-1].strip(), "cards": cards, "skipped": skipped}
