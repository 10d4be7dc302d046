"""Decks in and out of Anki: an exported package opens in Anki's own library with every note,
field, picture and the deck's name, and a package Anki exported becomes a deck here (read in the
reading sandbox, a real child process)."""

import base64
import zipfile
from pathlib import Path

import pytest
from anki.collection import (
    Collection,
    DeckIdLimit,
    ExportAnkiPackageOptions,
    ImportAnkiPackageRequest,
)
from anki.import_export_pb2 import ImportAnkiPackageOptions
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from apps.study.flashcards import anki as anki_export
from apps.study.flashcards.decks import create_deck
from apps.study.models import Deck
from apps.study.untrusted_files import picture_uri

IMPORT = "/api/v1/study/decks/import"
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAIAAAA7ljmRAAAAFElEQVR4nGM8ISfHAANMDEgAhQMAJtoBCkAAOw8AAAAASUVORK5CYII="
)


def anki_collection(folder: Path) -> Collection:
    return Collection(str(folder / "collection.anki2"))


def exported_by_anki(folder: Path, legacy: bool = True) -> bytes:
    """A deck Anki itself exports: a basic note with a picture, a reversed one, a cloze, and a
    note whose back is empty."""
    collection = anki_collection(folder)
    deck = collection.decks.id("Biologie::Zellen")
    notes = [
        ("Basic", {"Front": "Zelle", "Back": 'Einheit des Lebens<br><img src="zelle.png">'}),
        ("Basic (and reversed card)", {"Front": "Kern", "Back": "hält die DNA"}),
        ("Cloze", {"Text": "{{c1::Mitochondrien::Organell}} liefern ATP", "Back Extra": "Atmung"}),
        ("Basic", {"Front": "Ribosom", "Back": ""}),
    ]
    for kind, fields in notes:
        note = collection.new_note(collection.models.by_name(kind))
        for name, value in fields.items():
            note[name] = value
        collection.add_note(note, deck)
    collection.media.write_data("zelle.png", PNG)
    out = folder / "zellen.apkg"
    options = ExportAnkiPackageOptions(with_media=True, legacy=legacy)
    collection.export_anki_package(
        out_path=str(out), options=options, limit=DeckIdLimit(deck_id=deck)
    )
    collection.close()
    return out.read_bytes()


def test_an_exported_deck_opens_in_anki_with_every_note_field_picture_and_its_name(alice, tmp_path):
    deck, _ = create_deck(
        alice,
        "Zellbiologie 7b",
        [
            {"front": "Zelle", "back": "Einheit <des> Lebens\nkleinste"},
            {"front": "Kern", "back": "DNA", "pictures": {"front": [picture_uri(PNG)]}},
        ],
        now=timezone.now(),
    )
    package = tmp_path / "deck.apkg"
    package.write_bytes(anki_export.export_apkg(deck))

    collection = anki_collection(tmp_path)
    collection.import_anki_package(
        ImportAnkiPackageRequest(package_path=str(package), options=ImportAnkiPackageOptions())
    )
    notes = [collection.get_note(nid) for nid in collection.find_notes("")]
    names = [d.name for d in collection.decks.all_names_and_ids()]
    media = Path(collection.media.dir())

    assert "Zellbiologie 7b" in names
    assert sorted(note.fields[0].split("<br>")[0] for note in notes) == ["Kern", "Zelle"]
    assert "Einheit &lt;des&gt; Lebens<br>kleinste" in [note.fields[1] for note in notes]
    pictures = [name for name in (p.name for p in media.iterdir()) if name.endswith(".png")]
    assert len(pictures) == 1 and (media / pictures[0]).read_bytes() == PNG
    collection.close()


def test_a_deck_anki_exported_becomes_a_deck_with_reversed_cards_cloze_gaps_and_pictures(
    alice, alice_client, tmp_path
):
    data = exported_by_anki(tmp_path)

    response = alice_client.post(IMPORT, {"file": SimpleUploadedFile("zellen.apkg", data)})

    assert response.status_code == 201, response.content
    body = response.json()
    deck = Deck.objects.get(pk=body["id"], owner=alice)
    cards = [(c.front, c.back) for c in deck.cards.all()]
    assert deck.title == "Zellen" and body["imported"] == 4
    assert cards == [
        ("Zelle", "Einheit des Lebens"),
        ("Kern", "hält die DNA"),
        ("hält die DNA", "Kern"),
        ("[Organell] liefern ATP", "Mitochondrien liefern ATP\n\nAtmung"),
    ]
    assert deck.cards.first().pictures == {"back": [picture_uri(PNG)]}
    assert body["skipped"] == [
        {"index": 4, "type": "Basic", "reason": "its first two fields are not both filled"}
    ]


def test_a_deck_in_ankis_newest_format_is_refused_with_what_to_do(alice_client, tmp_path):
    data = exported_by_anki(tmp_path, legacy=False)

    response = alice_client.post(IMPORT, {"file": SimpleUploadedFile("zellen.apkg", data)})

    assert response.status_code == 400
    assert "Support older Anki versions" in response.json()["detail"]
    assert not Deck.objects.exists()


def test_a_csv_file_is_told_from_an_anki_package_by_its_content(alice, alice_client):
    csv = b"front,back\nZelle,Einheit\nKern,DNA\n"

    response = alice_client.post(IMPORT, {"file": SimpleUploadedFile("deck.apkg", csv)})

    assert response.status_code == 201
    assert response.json() == {"id": Deck.objects.get().pk, "imported": 2, "skipped": []}


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ({"collection.anki2": b"not a database at all"}, "collection is damaged"),
        ({"readme.txt": b"hello"}, "not an Anki package"),
    ],
    ids=["damaged", "no-collection"],
)
def test_a_broken_package_is_a_400_and_makes_no_deck(alice_client, tmp_path, entries, message):
    package = tmp_path / "broken.apkg"
    with zipfile.ZipFile(package, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)

    response = alice_client.post(
        IMPORT, {"file": SimpleUploadedFile("broken.apkg", package.read_bytes())}
    )

    assert response.status_code == 400 and message in response.json()["detail"]
    assert not Deck.objects.exists()


def test_the_deck_page_imports_an_anki_package(alice, alice_client, tmp_path):
    data = exported_by_anki(tmp_path)

    response = alice_client.post(
        "/study/decks/import/", {"file": SimpleUploadedFile("zellen.apkg", data)}
    )

    deck = Deck.objects.get(owner=alice)
    assert response.status_code == 302 and response["Location"] == f"/study/decks/{deck.pk}/"
    page = alice_client.get(response["Location"]).content.decode()
    assert "Imported 4 cards." in page and "Left out 1 × Basic (4)" in page
    assert 'src="data:image/png;base64,' in page
