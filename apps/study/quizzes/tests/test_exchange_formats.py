"""The question bank formats, read and written without the database: files written in the shape
Moodle and QTI tools write them are read as those tools mean them, our exports pass independent
readers (the 1EdTech XSDs, what Moodle's importer needs) and read back as they were, and hostile
files are refused with a reason."""

import base64
import io
import zipfile
from pathlib import Path

import pytest
from lxml import etree

from apps.study.quizzes import bank_files, gift, moodle_xml, qti
from apps.study.quizzes.bank import Bank, Item
from apps.study.quizzes.tests import moodle_importer
from apps.study.untrusted_files import UnreadableFile, picture_uri

DATA = Path(__file__).parent / "data"
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAQAAAADCAIAAAA7ljmRAAAAFElEQVR4nGM8ISfHAANMDEgAhQMAJtoBCkAAOw8AAAAASUVORK5CYII="
)


def a_bank() -> Bank:
    return Bank(
        "Cells & organelles",
        [
            Item(
                "mcq",
                "Which organelle makes ATP?\nLook at the diagram.",
                ["Nucleus", "Mitochondrion", "A = b {c}", "x < y # z: ~w"],
                1,
                "It burns sugar.\n\nThat is called respiration: 1 < 2.",
                [picture_uri(PNG)],
                source="cells.pdf, p. 3",
                passage="The mitochondrion is the powerhouse of the cell.",
            ),
            Item("true_false", "Plant cells have a wall.", ["True", "False"], 0, "Cellulose."),
            Item("true_false", "Bacteria have a nucleus.", ["True", "False"], 1, ""),
        ],
    )


def kept(bank: Bank, pictures: bool = True) -> list[tuple]:
    return [
        (i.kind, i.text, i.options, i.correct_index, i.explanation, i.pictures if pictures else [])
        for i in bank.items
    ]


def skipped(bank: Bank) -> list[tuple]:
    return [(s.index, s.type) for s in bank.skipped]


def package(folder: Path) -> Path:
    out = folder.parent / f"{folder.name}.zip"
    with zipfile.ZipFile(out, "w") as archive:
        for path in folder.rglob("*"):
            if path.is_file():
                archive.write(path, path.relative_to(folder).as_posix())
    return out


def test_a_moodle_bank_keeps_single_answer_and_true_false_questions_with_their_feedback():
    bank = moodle_xml.read((DATA / "moodle_bank.xml").read_bytes())

    assert bank.title == "Biology 7b"  # the category the file's categories share
    first, second = bank.items
    assert first.text == "Which organelle is the powerhouse of the cell?"  # no script, no tags
    assert first.options == ["The nucleus", "The mitochondrion", "The ribosome"]
    assert first.correct_index == 1
    # The right answer's "Yes, well done!" only praises; the general feedback explains.
    assert first.explanation == "Mitochondria turn food into ATP."
    assert first.pictures == [picture_uri(PNG)]  # the embedded file the text shows
    assert (second.kind, second.options, second.correct_index) == (
        "true_false",
        ["True", "False"],
        1,
    )
    assert second.explanation == "Right: the wall is made of cellulose."  # praise and a reason


def test_a_moodle_bank_lists_the_questions_it_cannot_ask_with_their_type_and_why():
    bank = moodle_xml.read((DATA / "moodle_bank.xml").read_bytes())

    assert skipped(bank) == [
        (3, "shortanswer"),
        (4, "essay"),
        (5, "matching"),
        (6, "multianswer"),
        (7, "multichoice"),
    ]
    reasons = {s.type: s.reason for s in bank.skipped}
    assert "typed answers" in reasons["shortanswer"]
    assert reasons["multichoice"] == "several answers may be chosen"


def test_a_gift_file_is_read_as_moodles_gift_importer_reads_it():
    bank = gift.read((DATA / "bank.gift").read_bytes())

    assert bank.title == "Chemistry"
    assert kept(bank) == [
        ("mcq", "Which of these is a noble gas?", ["Oxygen", "Neon", "Sodium"], 1,
         "Neon is in group 18.\n\nSee the periodic table, group 18.", []),
        ("true_false", "Water is made of hydrogen and oxygen.", ["True", "False"], 0,
         "Right, H₂O.", []),
        ("true_false", "Iron is a gas at room temperature.", ["True", "False"], 1, "", []),
        ("mcq", "What does the notation 1{2} = 3 mean in #4 ~ this set:?",
         ["Nothing {at all}", "Everything"], 0, "It is made up.", []),
    ]  # fmt: skip
    assert skipped(bank) == [
        (4, "shortanswer"),
        (5, "match"),
        (6, "numerical"),
        (7, "essay"),
        (8, "description"),
        (9, "multichoice"),
    ]


def test_a_qti_package_from_another_tool_keeps_its_prompt_picture_and_feedback(tmp_path):
    folder = tmp_path / "qti_package"
    folder.mkdir()
    for path in (DATA / "qti_package").rglob("*"):
        if path.is_file():
            target = folder / path.relative_to(DATA / "qti_package")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())

    bank = qti.read(package(folder))

    assert kept(bank) == [
        ("mcq", "Look at the flask.\n\nAt what temperature does water boil at sea level?",
         ["50 °C", "100 °C", "150 °C"], 1,
         "Yes, at 1013 hPa.\n\nWater boils when its vapour pressure reaches the air's.",
         [picture_uri(PNG)]),
    ]  # fmt: skip
    assert skipped(bank) == [(2, "textEntryInteraction"), (3, "choiceInteraction")]


@pytest.mark.parametrize(
    ("write", "read", "pictures"),
    [
        (moodle_xml.write, moodle_xml.read, True),
        (gift.write, lambda text: gift.read(text.encode()), False),
        (qti.write, lambda data: qti.read(io.BytesIO(data)), True),
    ],
    ids=["moodle_xml", "gift", "qti"],
)
def test_an_exported_bank_reads_back_with_the_same_questions_options_answers_and_feedback(
    write, read, pictures
):
    bank = a_bank()

    back = read(write(bank))

    assert back.title == bank.title
    assert kept(back, pictures) == kept(bank, pictures)
    assert back.skipped == []


def test_the_qti_package_is_valid_against_the_1edtech_schemas():
    schemas = DATA / "qti21"
    parser = etree.XMLParser(no_network=True, resolve_entities=False)
    items = etree.XMLSchema(etree.parse(str(schemas / "qtiv2p1" / "imsqti_v2p1.xsd"), parser))
    packaging = etree.XMLSchema(etree.parse(str(schemas / "imscp_v1p1.xsd"), parser))

    archive = zipfile.ZipFile(io.BytesIO(qti.write(a_bank())))
    manifest = etree.fromstring(archive.read("imsmanifest.xml"), parser)

    assert packaging.validate(manifest), packaging.error_log
    files = {f.get("href") for f in manifest.iter("{http://www.imsglobal.org/xsd/imscp_v1p1}file")}
    assert files == set(archive.namelist()) - {"imsmanifest.xml"}
    for name in archive.namelist():
        if name.endswith(".xml") and name != "imsmanifest.xml":
            document = etree.fromstring(archive.read(name), parser)
            assert items.validate(document), (name, items.error_log)
    assert len([n for n in archive.namelist() if n.startswith("ITEM-")]) == 4  # 3 + a picture


def test_the_moodle_xml_export_has_everything_moodles_importer_reads():
    data = moodle_xml.write(a_bank())

    assert moodle_importer.problems(data) == []
    # The checker finds what Moodle would refuse.
    assert moodle_importer.problems(data.replace(b'fraction="100"', b'fraction="50"', 1))


def test_the_source_passage_travels_in_the_export_but_does_not_become_the_explanation():
    data = moodle_xml.write(a_bank())

    assert b"The mitochondrion is the powerhouse of the cell." in data
    assert b"cells.pdf, p. 3" in data
    assert moodle_xml.read(data).items[0].explanation == a_bank().items[0].explanation


def test_the_format_is_told_by_content_not_by_name(tmp_path):
    files = {
        "moodle_xml": (DATA / "moodle_bank.xml").read_bytes(),
        "gift": (DATA / "bank.gift").read_bytes(),
        "qti": qti.write(a_bank()),
    }
    for fmt, data in files.items():
        path = tmp_path / "upload.txt"  # the same misleading name for all
        path.write_bytes(data)
        assert bank_files.read_bank(path)["format"] == fmt


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<quiz><question type="truefalse"><name><text>&lol3;</text></name></question></quiz>"""
EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE quiz [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<quiz><question type="truefalse"><name><text>&secret;</text></name></question></quiz>"""


@pytest.mark.parametrize("data", [BILLION_LAUGHS, EXTERNAL_ENTITY], ids=["laughs", "external"])
def test_xml_entities_are_refused_before_anything_is_expanded(data):
    with pytest.raises(UnreadableFile, match="DTD or XML entities"):
        moodle_xml.read(data)


def test_a_zip_bomb_in_a_qti_package_is_refused_unpacked(tmp_path):
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("imsmanifest.xml", b"<manifest/>")
        archive.writestr("ITEM-1.xml", b"\0" * (100 * 1024 * 1024))

    with pytest.raises(UnreadableFile, match="a zip bomb"):
        qti.read(bomb)


@pytest.mark.parametrize(
    ("data", "what"),
    [
        (b"::Q::Caf\xe9?{T}", "GIFT"),
        ("<quiz><question type='truefalse'><name><text>Café</text></name></question></quiz>"
         .encode("latin-1"), "Moodle XML"),
    ],
    ids=["gift", "xml"],
)  # fmt: skip
def test_text_that_is_not_utf8_is_refused_saying_which_byte(data, what):
    read = gift.read if what == "GIFT" else moodle_xml.read

    with pytest.raises(UnreadableFile, match=r"not UTF-8 text \(byte \d+"):
        read(data)


def test_other_xml_and_qti_1_2_packages_are_refused_with_what_to_do(tmp_path):
    with pytest.raises(UnreadableFile, match="not a Moodle question bank"):
        moodle_xml.read(b"<html><body>no</body></html>")
    canvas = tmp_path / "canvas.zip"
    with zipfile.ZipFile(canvas, "w") as archive:
        archive.writestr(
            "imsmanifest.xml",
            '<manifest xmlns="http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1"><resources>'
            '<resource identifier="r" type="imsqti_xmlv1p2" href="q.xml"/></resources></manifest>',
        )
    with pytest.raises(UnreadableFile, match="QTI 1.2"):
        qti.read(canvas)


def test_feedback_that_only_praises_the_right_answer_is_no_explanation():
    data = (
        "::Zelle:: Wo findet die Zellatmung statt? {=In den Mitochondrien#Richtig! ~Im Kern"
        "#Leider nein. ~In der Vakuole####Die Mitochondrien sind die Kraftwerke der Zelle.}\n"
    )

    [item] = gift.read(data.encode()).items

    assert item.explanation == "Die Mitochondrien sind die Kraftwerke der Zelle."
