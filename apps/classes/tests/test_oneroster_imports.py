"""Importing a OneRoster 1.2 CSV zip (docs/classroom.md#rosters), in the shape of 1EdTech's
published examples: people and classes are matched by their sourcedIds, so importing again
updates names, titles and enrolments and makes no one twice; only the admin makes teachers;
a teacher never reaches another teacher's student through a roster."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.accounts.models import User
from apps.classes.models import SchoolClass
from tests.helpers.classes import class_members, example_csv, make_class, oneroster_zip
from tests.helpers.classes import send_roster as send
from tests.helpers.users import client_for

pytestmark = pytest.mark.django_db

ONLY_TWO_ROLES = "only students and teachers are imported."


def upload(data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile("roster", data)


def without(text: str, *marks: str) -> str:
    """The CSV's lines that hold none of `marks`."""
    return "\n".join(line for line in text.splitlines() if not any(m in line for m in marks))


def test_the_admin_makes_teachers_classes_and_students_from_a_oneroster_zip(admin):
    answer = send(client_for(admin), oneroster_zip()).json()

    assert (answer["created"], answer["updated"], answer["errors"]) == (7, 0, [])
    nkemdirim = User.objects.get(username="onkemdirim")
    assert nkemdirim.is_teacher and nkemdirim.roster_id == "usr-t-nkemdirim"
    assert not nkemdirim.has_card
    science = SchoolClass.objects.get(roster_id="cls-7b-sci")
    maths = SchoolClass.objects.get(roster_id="cls-8a-mat")
    assert (science.name, science.owner, maths.owner.username) == (
        "7b Science",
        nkemdirim,
        "plaine",
    )
    assert sorted(maths.teachers.values_list("username", flat=True)) == ["onkemdirim", "plaine"]
    assert class_members("7b Science") == ["ljohansson", "mvarga", "sokafor"]
    assert class_members("8a Mathematics") == ["rmehta", "sokafor", "tbrennan"]
    assert User.objects.get(username="mvarga").get_full_name() == "Máté Varga"
    # The e-mail addresses the information system has, what a gradebook matches marks by.
    assert User.objects.get(username="onkemdirim").email == "o.nkemdirim@hillside.example"
    assert User.objects.get(username="mvarga").email == ""
    cards = {card["username"]: card["badge_url"] for card in answer["credentials"]}
    assert cards["onkemdirim"] == "" and cards["mvarga"]  # teachers get no login card


def test_importing_a_oneroster_zip_again_updates_names_titles_and_enrolments(admin):
    client = client_for(admin)
    send(client, oneroster_zip())
    accounts = User.objects.count()
    users = example_csv("users").replace("Máté,Varga", "Máté,Varga-Kiss")
    classes = example_csv("classes").replace("7b Science", "7b Biology")
    enrollments = (
        example_csv("enrollments")
        .replace("enr-7b-s1,,", "enr-7b-s1,tobedeleted,")  # mvarga leaves 7b
        .replace("enr-8a-s3,,", "enr-8a-s3,active,")
    )

    answer = send(
        client, oneroster_zip(users=users, classes=classes, enrollments=enrollments)
    ).json()

    assert (answer["created"], answer["updated"], answer["errors"]) == (0, 7, [])
    assert User.objects.count() == accounts and SchoolClass.objects.count() == 2
    assert SchoolClass.objects.get(roster_id="cls-7b-sci").name == "7b Biology"
    assert User.objects.get(roster_id="usr-s-0412").last_name == "Varga-Kiss"
    assert class_members("7b Biology") == ["ljohansson", "sokafor"]  # the account stays


def test_a_user_to_be_deleted_leaves_the_rosters_classes_and_keeps_the_account(admin):
    client = client_for(admin)
    send(client, oneroster_zip())
    users = example_csv("users").replace("usr-s-0413,,", "usr-s-0413,tobedeleted,")

    answer = send(client, oneroster_zip(users=users)).json()

    assert answer["errors"] == []
    assert "sokafor" not in class_members("7b Science") + class_members("8a Mathematics")
    assert User.objects.filter(username="sokafor", is_active=True).exists()


def test_a_teachers_roster_of_her_own_classes_names_her_and_her_students(tess, tess_client):
    # 7b's roster only, its teacher being tess (by her username).
    users = without(example_csv("users"), "laine", "0520", "0521").replace("onkemdirim", "tess")
    classes = without(example_csv("classes"), "cls-8a")
    enrollments = without(example_csv("enrollments"), "cls-8a")

    answer = send(tess_client, oneroster_zip(users=users, classes=classes, enrollments=enrollments))

    answer = answer.json()

    assert (answer["created"], answer["updated"], answer["errors"]) == (3, 1, [])
    science = SchoolClass.objects.get(roster_id="cls-7b-sci")
    assert science.owner == tess and list(science.teachers) == [tess]
    tess.refresh_from_db()
    assert (tess.roster_id, tess.get_full_name()) == ("usr-t-nkemdirim", "Obiageli Nkemdirim")


def test_a_teachers_roster_naming_other_teachers_leaves_them_and_their_enrolments_out(tess_client):
    answer = send(tess_client, oneroster_zip(), confirm="true").json()

    only_the_admin = "is a teacher: only the admin adds teachers from a roster."
    assert answer["errors"] == [
        {"line": 2, "detail": f"users.csv: onkemdirim {only_the_admin}"},
        {"line": 3, "detail": f"users.csv: plaine {only_the_admin}"},
        {"line": 2, "detail": "enrollments.csv: left out with users.csv line 2."},
        {"line": 6, "detail": "enrollments.csv: left out with users.csv line 3."},
        {"line": 7, "detail": "enrollments.csv: left out with users.csv line 2."},
    ]
    assert answer["created"] == 5
    assert list(User.objects.filter(is_staff=True).values_list("username", flat=True)) == ["tess"]
    assert SchoolClass.objects.get(roster_id="cls-8a-mat").owner.username == "tess"


def test_a_teacher_cannot_pull_another_teachers_student_in_by_sourced_id(tom, bob, tess_client):
    make_class(tom, [bob], "8a")
    User.objects.filter(pk=bob.pk).update(roster_id="usr-s-0412")

    answer = send(tess_client, oneroster_zip(), confirm="true").json()

    errors = answer["errors"]
    assert {"line": 4, "detail": "users.csv: no student you may add is called mvarga."} in errors
    assert {"line": 3, "detail": "enrollments.csv: left out with users.csv line 4."} in errors
    bob.refresh_from_db()
    assert bob.get_full_name() == ""
    assert list(bob.enrolments.values_list("school_class__name", flat=True)) == ["8a"]


def test_bad_oneroster_rows_are_reported_with_their_file_and_line(admin):
    users = (
        example_csv("users")
        + "usr-s-0412,,,true,mvarga2,,Dup,Licate,,,,,,,,,,,,,,,\n"
        + "usr-g-1,,,true,,,Gail,Ward,,,,,,,,,,,,,,,\n"
    )
    enrollments = (
        example_csv("enrollments")
        + "enr-x1,,,cls-9z,org-hillside,usr-s-0412,student,false,,\n"
        + "enr-x2,,,cls-7b-sci,org-hillside,usr-s-0412,student,false,,\n"
        + "enr-x3,,,cls-7b-sci,org-hillside,usr-g-1,guardian,false,,\n"
    )

    answer = send(client_for(admin), oneroster_zip(users=users, enrollments=enrollments)).json()

    assert answer["errors"] == [
        {
            "line": 9,
            "detail": "users.csv: the sourcedId usr-s-0412 is on users.csv line 4 already.",
        },
        {"line": 10, "detail": "users.csv: in no class of this roster, so not imported."},
        {"line": 11, "detail": "enrollments.csv: no class cls-9z in classes.csv."},
        {"line": 12, "detail": "enrollments.csv: the same enrolment as enrollments.csv line 3."},
        {"line": 13, "detail": f"enrollments.csv: the role guardian: {ONLY_TWO_ROLES}"},
    ]
    assert (answer["created"], User.objects.count()) == (0, 1)


def test_a_zip_in_a_folder_with_a_users_role_column_is_read(admin):
    # OneRoster 1.1 has each user's role in users.csv; 1.2 in roles.csv and the enrolments.
    users = "sourcedId,role,givenName,familyName\nu1,student,Ada,Lovelace\nu2,aide,Al,Aide\n"
    enrollments = "classSourcedId,userSourcedId,role\ncls-7b-sci,u1,student\n"

    answer = send(
        client_for(admin),
        oneroster_zip("export/", users=users, enrollments=enrollments),
        confirm="true",
    )

    assert answer.json()["errors"] == [
        {"line": 3, "detail": f"users.csv: the role aide: {ONLY_TWO_ROLES}"}
    ]
    assert class_members("7b Science") == ["ada.lovelace"]


def test_a_plain_csv_names_a_student_of_a_oneroster_import_by_username(admin):
    client = client_for(admin)
    send(client, oneroster_zip())

    answer = send(client, "name,username,class\nMáté Varga,mvarga,Chess club\n").json()

    assert (answer["created"], answer["updated"], answer["errors"]) == (0, 1, [])
    assert class_members("Chess club") == ["mvarga"]
    assert User.objects.get(username="mvarga").roster_id == "usr-s-0412"


def test_the_admins_page_prints_the_new_teachers_passwords_without_a_card(admin):
    page = client_for(admin).post("/classes/import/", {"file": upload(oneroster_zip())})

    assert page.status_code == 200
    assert page.text.count('class="card credential"') == 7
    assert page.text.count('aria-label="Login QR code for') == 5  # the students'
    assert "Login QR code for onkemdirim" not in page.text
