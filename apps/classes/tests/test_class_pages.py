"""The Classes pages and their API: a teacher's classes, each with its students, a join code a
student types, and co-teachers; a teacher reaches only the classes they teach."""

import re

import pytest
from django.core.management import call_command

from apps.accounts.models import User
from apps.classes.models import Enrolment
from tests.helpers.classes import make_class

pytestmark = pytest.mark.django_db

JSON = "application/json"


def test_a_teacher_creates_students_from_a_list_of_names(tess, tess_client):
    seventh = make_class(tess)

    response = tess_client.post(
        f"/classes/{seventh.pk}/students/",
        {"names": "Ada Lovelace\n\n  Alan Turing \nAda Lovelace\n"},
    )

    assert response.status_code == 200
    credentials = response.context["credentials"]
    assert [user.username for user, *_ in credentials] == [
        "ada.lovelace",
        "alan.turing",
        "ada.lovelace2",
    ]
    for user, password, *_ in credentials:
        assert password in response.text
        # Three names: hashed in the request (batches.HASHED_IN_REQUEST), working at once.
        assert User.objects.get(pk=user.pk).check_password(password)
        assert not user.is_staff
    assert [u.username for u in seventh.students] == [
        "ada.lovelace",
        "ada.lovelace2",
        "alan.turing",
    ]
    # Each card names the class, so a card cut out of the sheet still says where it belongs.
    headings = re.findall(r'<h2 style="--chars: \d+">(.*?)</h2>', response.text)
    assert headings == [
        f"Ada Lovelace · {seventh.name}",
        f"Alan Turing · {seventh.name}",
        f"Ada Lovelace · {seventh.name}",
    ]


def test_a_name_listed_twice_is_named_on_the_cards_page_with_the_usernames_it_got(
    tess, tess_client
):
    seventh = make_class(tess)

    twice = tess_client.post(
        f"/classes/{seventh.pk}/students/",
        {"names": "Lukas Hoffmann\nAda Lovelace\nlukas hoffmann\nLukas Hoffmann\n"},
    )
    once = tess_client.post(f"/classes/{seventh.pk}/students/", {"names": "Alan Turing"})

    note = twice.text.split('id="shared-names"')[1].split("</div>")[0]
    assert "more than once" in note
    assert "Lukas Hoffmann: lukas.hoffmann, lukas.hoffmann2, lukas.hoffmann3" in note
    assert "Ada Lovelace" not in note
    assert 'id="shared-names"' not in once.text


def test_a_class_of_namesakes_costs_a_few_queries_per_student(db, django_assert_max_num_queries):
    User.objects.create_students(["Max"] * 20)
    with django_assert_max_num_queries(3 * 20 + 5):
        _, created = User.objects.create_students(["Max"] * 20)
    assert [user.username for user, _ in created][:2] == ["max21", "max22"]


def test_students_cannot_manage_a_class(tess_class, alice_client):
    assert alice_client.get(f"/classes/{tess_class.pk}/").status_code == 403
    response = alice_client.post(f"/classes/{tess_class.pk}/students/", {"names": "Eve"})
    assert response.status_code == 403
    assert not User.objects.filter(username="eve").exists()
    assert alice_client.post("/classes/new/", {"name": "Mine"}).status_code == 403


def test_an_empty_list_explains_itself(tess_class, tess_client):
    response = tess_client.post(
        f"/classes/{tess_class.pk}/students/", {"names": "  \n "}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 422
    assert "Enter at least one name." in response.text


def test_the_class_page_shows_the_address_the_code_and_its_qr(tess_class, tess_client):
    page = tess_client.get(f"/classes/{tess_class.pk}/")
    assert page.status_code == 200
    assert "/accounts/login/" in page.context["join_urls"][0]
    assert page.context["class_join_url"].endswith(f"/classes/join/?code={tess_class.code}")
    assert "<svg" in page.text and tess_class.code in page.text
    assert "alice" in page.text and "bob" in page.text


def test_the_old_classroom_address_leads_to_the_classes(tess_client):
    assert tess_client.get("/accounts/classroom/").url == "/classes/"


def test_a_teacher_resets_a_students_password(tess_class, tess_client, alice):
    response = tess_client.post(f"/classes/{tess_class.pk}/students/{alice.pk}/reset/")
    [(user, password, *_)] = response.context["credentials"]
    alice.refresh_from_db()
    assert alice.check_password(password)


def test_a_teacher_cannot_reset_another_teachers_password_from_a_class(tess_class, tess_client):
    other = User.objects.create_user("tom", password="x" * 12, is_staff=True)
    tess_class.enrol([other], Enrolment.Role.TEACHER)
    response = tess_client.post(f"/classes/{tess_class.pk}/students/{other.pk}/reset/")
    assert response.status_code == 404


def test_the_api_creates_students_for_teachers_only(tess_client, alice_client):
    response = tess_client.post(
        "/api/v1/accounts/students",
        {"usernames": ["Grace Hopper", "linus"]},
        content_type="application/json",
    )
    assert response.status_code == 201
    created = response.json()
    assert [c["username"] for c in created] == ["grace.hopper", "linus"]
    assert User.objects.get(username="linus").check_password(created[1]["password"])

    denied = alice_client.post(
        "/api/v1/accounts/students", {"usernames": ["mallory"]}, content_type="application/json"
    )
    assert denied.status_code == 403
    assert denied.json()["detail"] == "Only teachers manage classes and student accounts."


@pytest.mark.parametrize(
    "body",
    [{}, {"usernames": []}, {"usernames": "ada"}, {"usernames": [" "]}, {"usernames": ["a" * 151]}],
)
def test_bad_student_lists_get_a_4xx_with_detail(tess_client, body):
    response = tess_client.post("/api/v1/accounts/students", body, content_type="application/json")
    assert 400 <= response.status_code < 500
    assert "detail" in response.json()


def test_a_name_too_long_for_the_account_explains_itself_and_creates_nobody(tess, tess_client):
    seventh = make_class(tess)
    response = tess_client.post(f"/classes/{seventh.pk}/students/", {"names": "Ada\n" + "b" * 151})
    assert response.status_code == 422
    assert "at most 150 characters" in response.text
    assert not User.objects.students().exists()


def test_bootstrap_creates_the_first_teacher_once(db, capsys):
    call_command("bootstrap")
    first = capsys.readouterr().out
    assert "password:" in first
    assert User.objects.filter(is_staff=True).count() == 1

    call_command("bootstrap")
    assert "password:" not in capsys.readouterr().out
    assert User.objects.filter(is_staff=True).count() == 1


def test_prepare_migrates_writes_the_certificate_and_creates_the_first_teacher_once(
    db, settings, capsys
):
    call_command("prepare", verbosity=0)
    first = capsys.readouterr().out
    assert "password:" in first
    assert "Certificate SHA-256 fingerprint" in first
    assert (settings.DATA_DIR / "tls" / "cert.pem").is_file()
    assert User.objects.filter(is_staff=True).count() == 1

    call_command("prepare", verbosity=0)
    assert "password:" not in capsys.readouterr().out
    assert User.objects.filter(is_staff=True).count() == 1
