"""A deck as an Anki package (.apkg) that Anki updates, not duplicates, when imported again;
a card's pictures travel as the package's media."""

import hashlib
import html
import tempfile
from pathlib import Path

import genanki

from apps.study.flashcards.models import Card, Deck
from apps.study.untrusted_files import picture_bytes

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


def side_field(card: Card, side: str, folder: Path, media: list[str]) -> str:
    """One side as an Anki field, its pictures saved in `folder` as media the field shows."""
    text = anki_field(getattr(card, side))
    for i, uri in enumerate((card.pictures or {}).get(side, []), 1):
        data, extension = picture_bytes(uri)
        name = f"cognivault-{card.pk}-{side}-{i}.{extension}"
        (folder / name).write_bytes(data)
        media.append(str(folder / name))
        text += f'<br><img src="{name}">'
    return text


def export_apkg(deck: Deck) -> bytes:
    anki_deck = genanki.Deck(stable_id("deck", deck.owner_id, deck.pk), deck.title)
    with tempfile.TemporaryDirectory() as folder:
        media: list[str] = []
        for card in deck.cards.all():
            fields = [side_field(card, side, Path(folder), media) for side in ("front", "back")]
            anki_deck.add_note(
                genanki.Note(
                    model=ANKI_MODEL,
                    fields=fields,
                    guid=genanki.guid_for("cognivault", deck.pk, card.pk),
                )
            )
        path = Path(folder) / "deck.apkg"
        genanki.Package(anki_deck, media_files=media).write_to_file(str(path))
        return path.read_bytes()
