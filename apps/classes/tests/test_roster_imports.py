"""Importing a roster (docs/classroom.md#rosters): a plain CSV of names and classes; what
cannot be read at all; a class of 200 at once; and the Classes page's form. Importing again
updates and makes no one twice; each bad row is reported with its line, and a file with one
changes nothing unless the teacher confirms its good rows (OneRoster's zips:
test_oneroster_imports.py)."""

import io
import re
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.accounts import tasks
from apps.accounts.models import StudentBatch, User
from apps.accounts.tests.counting_hasher import counting_hashes
from apps.classes.models import SchoolClass
from tests.helpers.classes import class_members, example_csv, make_class, oneroster_zip
from tests.helpers.classes import school_state as state
from tests.helpers.classes import send_roster as send

pytestmark = pytest.mark.django_db


PLAIN = (
    "name,username,class\n"
    "Ada Lovelace,,7b\n"
    "Alan Turing,aturing,7b\n"
    "Alan Turing,aturing,Chess club\n"  # one student in two classes
)


# --- A plain CSV -----------------------------------------------------------------------------


def test_a_plain_csv_makes_its_students_and_the_classes_the_teacher_lacks(tess, tess_client):
    seventh = make_class(tess)

    answer = send(tess_client, PLAIN)

    assert answer.status_code == 200
    body = answer.json()
    assert (body["created"], body["updated"], body["errors"]) == (2, 0, [])
    assert sorted(card["username"] for card in body["credentials"]) == ["ada.lovelace", "aturing"]
    assert all(
        card["password"] and "/accounts/badge/" in card["badge_url"] for card in body["credentials"]
    )
    assert class_members("7b") == ["ada.lovelace", "aturing"]
    assert class_members("Chess club") == ["aturing"]
    assert SchoolClass.objects.get(name="Chess club").owner == tess
    assert SchoolClass.objects.filter(name="7b").get() == seventh  # the class she teaches


def test_an_information_systems_export_with_names_in_two_columns_and_a_homeroom(tess_client):
    """As a student information system exports it: given and family names apart, the class
    as a homeroom, and columns the roster does not need."""
    export = (
        "Student ID,First Name,Last Name,Homeroom,Grade\n"
        "10001,Siobhán,O'Brien,7B,7\n"
        "10002,Văn An,Nguyễn,7B,7\n"
    )

    answer = send(tess_client, export)

    assert answer.status_code == 200 and answer.json()["errors"] == []
    names = User.objects.students().order_by("last_name").values_list("first_name", "last_name")
    assert list(names) == [("Văn An", "Nguyễn"), ("Siobhán", "O'Brien")]
    assert len(class_members("7B")) == 2


def test_the_cards_of_a_roster_of_several_classes_come_by_class_each_naming_its_own(tess_client):
    roster = (
        "name,class\nZoe Adams,7C\nAda Lovelace,7B\nAlan Turing,7C\nBea Young,7B\n"
        "Emre Özdemir,7B\nLena Schmidt,7B\n"
    )

    page = tess_client.post(
        "/classes/import/", {"file": SimpleUploadedFile("r.csv", roster.encode())}
    )

    headings = re.findall(r'<h2 style="--chars: \d+">(.*?)</h2>', page.text)
    assert headings == [  # by family name within a class, Ö with the O's
        "Ada Lovelace · 7B",
        "Emre Özdemir · 7B",
        "Lena Schmidt · 7B",
        "Bea Young · 7B",
        "Zoe Adams · 7C",
        "Alan Turing · 7C",
    ]


def test_a_plain_csv_gives_its_students_e_mail_addresses_and_refuses_one_that_is_none(
    tess_client,
):
    roster = "name,class,E-Mail\nAda Lovelace,7b,ada@school.example\nAlan Turing,7b,alan(at)\n"

    shown = send(tess_client, roster)
    applied = send(tess_client, roster, confirm="true")
    again = send(tess_client, roster.replace("ada@", "ada.lovelace@"), confirm="true")

    assert shown.json()["errors"] == [{"line": 3, "detail": "'alan(at)' is not an e-mail address."}]
    assert applied.status_code == again.status_code == 200
    assert list(User.objects.students().values_list("email", flat=True)) == [
        "ada.lovelace@school.example"
    ]


def test_a_name_written_family_name_first_is_read_as_such(tess_client):
    send(tess_client, 'name,class\n"O\'Brien, Siobhán",7b\nAda King Lovelace,7b\n')

    names = User.objects.students().order_by("first_name").values_list("first_name", "last_name")

    assert list(names) == [("Ada", "King Lovelace"), ("Siobhán", "O'Brien")]


def test_importing_the_same_csv_again_updates_and_makes_no_one_twice(tess_client):
    send(tess_client, PLAIN)
    before = state()

    again = send(tess_client, PLAIN).json()
    unchanged = state()
    renamed = send(tess_client, PLAIN.replace("Alan Turing,aturing", "Alan M. Turing,aturing"))

    assert (again["created"], again["updated"], again["errors"]) == (0, 2, [])
    assert unchanged == before
    assert (renamed.json()["created"], renamed.json()["updated"]) == (0, 2)
    assert User.objects.get(username="aturing").get_full_name() == "Alan M. Turing"
    assert User.objects.students().count() == 2 and SchoolClass.objects.count() == 2


def test_excel_files_with_a_byte_order_mark_and_semicolons_are_read(tess_client):
    excel = "\ufeffName;Class\r\nZoë Ünal;7b\r\n".encode()

    answer = send(tess_client, excel).json()

    assert (answer["created"], answer["errors"]) == (1, [])
    assert User.objects.get(first_name="Zoë").last_name == "Ünal"


def test_a_formula_in_a_name_is_stored_as_text_and_shown_as_text(tess_client):
    formula = '=HYPERLINK("http://evil.example","<b>click</b>")'
    csv_text = f'name,class\n"{formula.replace(chr(34), chr(34) * 2)}",7b\n'

    page = tess_client.post(
        "/classes/import/", {"file": SimpleUploadedFile("r.csv", csv_text.encode())}
    )

    student = User.objects.students().get()
    assert student.get_full_name() == formula
    assert "<b>click</b>" not in page.text and "&lt;b&gt;click&lt;/b&gt;" in page.text


# --- Bad rows --------------------------------------------------------------------------------

WITH_ERRORS = (
    "name,username,class\n"
    "Ada Lovelace,,7b\n"  # line 2: good
    ",nobody,7b\n"  # line 3: no name
    "Alan Turing,aturing,7b\n"  # line 4: good
    "Alan Turing,aturing,7b\n"  # line 5: the same as line 4
    "Grace Hopper,grace hopper,8a\n"  # line 6: not a username
)


def test_each_bad_row_is_reported_with_its_line_and_the_file_changes_nothing(tess_client):
    before = state()

    answer = send(tess_client, WITH_ERRORS)

    assert answer.status_code == 200
    assert answer.json() == {
        "created": 0,
        "updated": 0,
        "errors": [
            {"line": 3, "detail": "no name."},
            {"line": 5, "detail": "the same student and class as line 4."},
            {
                "line": 6,
                "detail": "'grace hopper' is not a username: letters, digits and @ . + - _ only.",
            },
        ],
        "credentials": [],
    }
    assert state() == before


def test_confirming_applies_the_good_rows_and_reports_the_bad_ones(tess_client):
    answer = send(tess_client, WITH_ERRORS, confirm="true").json()

    assert (answer["created"], [error["line"] for error in answer["errors"]]) == (2, [3, 5, 6])
    assert class_members("7b") == ["ada.lovelace", "aturing"]
    assert not SchoolClass.objects.filter(name="8a").exists()  # only line 6 named it


def test_a_teacher_cannot_pull_another_teachers_student_in_by_a_roster(
    tess, tom, alice, bob, tess_client
):
    make_class(tom, [bob], "8a")
    make_class(tess, [alice], "7b")
    roster = "name,username,class\nBob,bob,7b\nTom,tom,7b\nAlice Liddell,alice,7b\n"

    answer = send(tess_client, roster, confirm="true").json()

    # Bob (tom's student) and tom (a teacher) read alike: as if no such student existed.
    assert answer["errors"] == [
        {"line": 2, "detail": "no student you may add is called bob."},
        {"line": 3, "detail": "no student you may add is called tom."},
    ]
    assert answer["updated"] == 1  # alice, whom tess teaches
    assert class_members("7b") == ["alice"] and class_members("8a") == ["bob"]
    assert User.objects.get(username="bob").get_full_name() == ""


def test_a_class_name_two_of_her_classes_share_is_an_error_of_its_rows(tess, tess_client):
    make_class(tess, name="Art")
    make_class(tess, name="art")

    answer = send(
        tess_client, "name,class\nAda,Art\nAlan,Maths\nGrace,ART\n", confirm="true"
    ).json()

    assert answer["errors"] == [
        {"line": 2, "detail": "you teach 2 classes called Art: rename one first."},
        {"line": 4, "detail": "left out with line 2."},
    ]
    assert answer["created"] == 1


# --- Files that cannot be read ----------------------------------------------------------------


def zip_of(**members: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name.replace("_", "."), data)
    return buffer.getvalue()


BOMB = zip_of(
    users_csv=b"sourcedId,givenName,familyName\n" + b"0" * 20_000_000,
    classes_csv=example_csv("classes").encode(),
    enrollments_csv=example_csv("enrollments").encode(),
)


@pytest.mark.parametrize(
    ("data", "status", "detail"),
    [
        (b"", 422, "The file is empty."),
        (b"name,username\nAda,ada\n", 422, "Line 1: no column class. A roster CSV has the columns"),
        ("name,class\nJosé,7b\n".encode("latin-1"), 422, "Line 2: this is not UTF-8 text."),
        (b"name,class\nAda,7b\n" + b"x" * 1024 * 1024, 413, "A roster file may be at most 1 MB"),
        (BOMB, 413, "users.csv is over 1 MB unzipped"),
        (oneroster_zip(enrollments=None), 422, "The zip has no enrollments.csv"),
        (
            oneroster_zip(users="sourcedId,givenName\nu1,Ada\n"),
            422,
            "users.csv line 1: no column familyName.",
        ),
        (example_csv("users").encode(), 422, "this looks like OneRoster's users.csv"),
        (b"PK\x03\x04 not a zip at all", 422, "The zip cannot be read"),
        (b"%PDF-1.7\n\x00\x01", 422, "Line 2: a NUL character"),
    ],
    ids=[
        "empty",
        "no class column",
        "latin-1",
        "over 1 MB",
        "zip bomb",
        "no enrollments",
        "no familyName",
        "users.csv alone",
        "broken zip",
        "binary",
    ],
)
def test_a_file_that_cannot_be_read_is_a_clear_4xx_and_makes_nothing(
    tess_client, data, status, detail
):
    before = state()

    answer = send(tess_client, data, confirm="true")

    assert answer.status_code == status, answer.content
    assert detail in answer.json()["detail"]
    assert state() == before


def test_only_teachers_import_rosters(alice_client):
    answer = send(alice_client, PLAIN)

    assert answer.status_code == 403 and not SchoolClass.objects.exists()


# --- 200 students, and the page --------------------------------------------------------------

CLASS = "name,class\n" + "".join(f"Student {n:03d},7b\n" for n in range(200))


def test_a_roster_of_200_hashes_no_password_in_the_request(
    tess_client, settings, django_capture_on_commit_callbacks
):
    hasher = counting_hashes(settings)

    with django_capture_on_commit_callbacks() as queued:
        answer = send(tess_client, CLASS).json()

    assert answer["created"] == 200 and hasher.calls == 0 and len(queued) == 1
    batch = StudentBatch.objects.get()
    tasks.hash_passwords(batch.pk)  # what the worker runs
    card = answer["credentials"][17]
    assert User.objects.get(username=card["username"]).check_password(card["password"])


def test_the_classes_page_imports_a_roster_and_prints_the_new_students_cards(
    tess_client, django_capture_on_commit_callbacks
):
    assert 'id="roster-import"' in tess_client.get("/classes/").text

    with django_capture_on_commit_callbacks():
        page = tess_client.post(
            "/classes/import/", {"file": SimpleUploadedFile("r.csv", CLASS.encode())}
        )

    assert page.status_code == 200 and "no-store" in page["Cache-Control"]
    assert page.text.count('aria-label="Login QR code for') == 200
    assert "0 of 200 done" in page.text
    seventh = SchoolClass.objects.get(name="7b")
    assert f"/classes/{seventh.pk}/batches/" in page.text


def test_the_page_shows_the_errors_and_applies_the_good_rows_when_asked(tess_client):
    shown = tess_client.post(
        "/classes/import/", {"file": SimpleUploadedFile("r.csv", WITH_ERRORS.encode())}
    )

    assert shown.status_code == 422 and "no-store" in shown["Cache-Control"]
    assert "<strong>Line 5</strong>: the same student and class as line 4." in shown.text
    assert "Apply the 2 good rows" in shown.text
    assert not User.objects.students().exists()
    kept = shown.context["kept"]

    applied = tess_client.post("/classes/import/", {"kept": kept, "confirm": "1"})

    assert applied.status_code == 200
    assert "2 accounts made, 0 updated. 3 rows with errors were left out." in applied.text
    assert applied.text.count('aria-label="Login QR code for') == 2
    assert class_members("7b") == ["ada.lovelace", "aturing"]


def test_the_page_says_why_a_file_cannot_be_read(tess_client):
    page = tess_client.post("/classes/import/", {"file": SimpleUploadedFile("r.csv", b"hello\n")})

    assert page.status_code == 422
    assert "Line 1: no column name, class." in page.text


def test_the_schema_states_the_import_route_as_clients_read_it(client):
    schema = client.get("/api/v1/openapi.json").json()
    route = schema["paths"]["/api/v1/classes/import"]["post"]
    form = route["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert (form["required"], form["properties"]["confirm"]["type"]) == (["file"], "boolean")
    assert {"200", "403", "413", "422"} <= set(route["responses"])
    shapes = schema["components"]["schemas"]
    assert list(shapes["RosterImportOut"]["properties"]) == [
        "created",
        "updated",
        "errors",
        "credentials",
    ]
    assert list(shapes["RosterErrorOut"]["properties"]) == ["line", "detail"]
