"""A deck as an Anki package (.apkg) that Anki updates, not duplicates, when imported again."""

import hashlib
import html
import tempfile
from pathlib import Path

import genanki

from apps.study.flashcards.models import Deck

# Fixed ids: Anki recognises the note type and the deck again when a deck is re-exported.
ANKI_MODEL = genanki.Model(
    1607392319,
    "CogniVault basic",
    fields=[{"name": "Front"}, {"name": "Back"}],
    templates=[
        {
            "name": "Card 1",
            "qfmt": "{{Front}}",
            "afmt": '{{FrontSide}}<hr id="answer">{{Back}}',
        }
    ],
)


def anki_field(text: str) -> str:
    """Anki fields are HTML: escape the text, keep its line breaks."""
    return html.escape(text).replace("\n", "<br>")


def stable_id(*parts: object) -> int:
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:6], "big") + (1 << 30)


def export_apkg(deck: Deck) -> bytes:
    anki_deck = genanki.Deck(stable_id("deck", deck.owner_id, deck.pk), deck.title)
    for card in deck.cards.all():
        anki_deck.add_note(
            genanki.Note(
                model=ANKI_MODEL,
                fields=[anki_field(card.front), anki_field(card.back)],
                guid=genanki.guid_for("cognivault", deck.pk, card.pk),
            )
        )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "deck.apkg"
        genanki.Package(anki_deck).write_to_file(str(path))
        return path.read_bytes()
