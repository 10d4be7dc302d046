"""Classes through the API: each has its teachers and students and a join code; a teacher
reaches the classes they teach, the admin every class, and a class taught by someone else is a
404 as if it did not exist."""

import pytest

from apps.accounts.models import User
from apps.classes.models import Enrolment, SchoolClass
from tests.helpers.classes import make_class
from tests.helpers.users import client_for, make_user

pytestmark = pytest.mark.django_db

JSON = "application/json"


def post(client, path: str, body: dict):
    return client.post(f"/api/v1{path}", body, content_type=JSON)


def test_a_teacher_makes_a_class_with_a_code_of_its_own(tess, tess_client):
    made = post(tess_client, "/classes", {"name": " 7b Biology "})

    assert made.status_code == 201
    body = made.json()
    assert (body["name"], body["teacher_ids"], body["student_count"]) == (
        "7b Biology",
        [tess.pk],
        0,
    )
    assert len(body["code"]) == 7 and body["owner_id"] == tess.pk
    second = post(tess_client, "/classes", {"name": "8a"}).json()
    assert second["code"] != body["code"]


def test_each_teacher_lists_their_own_classes_and_the_admin_every_class(tess, tom, admin):
    seventh, eighth = make_class(tess, name="7b"), make_class(tom, name="8a")

    def names(user) -> list[str]:
        return [c["name"] for c in client_for(user).get("/api/v1/classes").json()]

    assert names(tess) == ["7b"] and names(tom) == ["8a"] and names(admin) == ["7b", "8a"]
    assert client_for(tess).get(f"/api/v1/classes/{eighth.pk}").status_code == 404
    assert client_for(admin).get(f"/api/v1/classes/{seventh.pk}").json()["code"] == seventh.code


def test_another_teachers_class_is_not_found_whatever_is_asked(tess_client, tom, bob):
    eighth = make_class(tom, [bob], name="8a")
    base = f"/api/v1/classes/{eighth.pk}"

    answers = [
        tess_client.get(base),
        tess_client.patch(base, {"name": "Mine"}, content_type=JSON),
        tess_client.delete(base),
        tess_client.get(f"{base}/students"),
        post(tess_client, f"{base}/students", {"usernames": ["Eve"]}),
        post(tess_client, f"{base}/enrolments", {"usernames": ["bob"]}),
        tess_client.delete(f"{base}/students/{bob.pk}"),
        post(tess_client, f"{base}/teachers", {"username": "tess"}),
        tess_client.get(f"/api/v1/accounts/students?class_id={eighth.pk}"),
        post(tess_client, "/accounts/students", {"usernames": ["Eve"], "class_id": eighth.pk}),
    ]

    assert [answer.status_code for answer in answers] == [404] * len(answers)
    eighth.refresh_from_db()
    assert eighth.name == "8a" and list(eighth.students) == [bob]
    assert list(eighth.teachers) == [tom] and not User.objects.filter(username="eve").exists()


def test_a_class_gets_its_students_made_and_added_and_removed(tess, tess_client, alice):
    seventh = make_class(tess)
    base = f"/api/v1/classes/{seventh.pk}"

    made = post(tess_client, f"/classes/{seventh.pk}/students", {"usernames": ["Ada Lovelace"]})
    added = post(tess_client, f"/classes/{seventh.pk}/enrolments", {"usernames": ["ALICE", "x"]})

    assert made.status_code == 201 and made.json()[0]["username"] == "ada.lovelace"
    assert added.json() == {"enrolled": ["alice"], "not_found": ["x"]}
    assert [s["username"] for s in tess_client.get(f"{base}/students").json()] == [
        "alice",  # by family name, an account without one by its username: before Lovelace
        "ada.lovelace",
    ]
    assert tess_client.delete(f"{base}/students/{alice.pk}").status_code == 204
    assert list(seventh.students.values_list("username", flat=True)) == ["ada.lovelace"]
    assert User.objects.filter(username="alice").exists()  # the account stays


def test_a_teacher_cannot_take_another_teachers_student_by_name(tess, tom, bob, admin):
    make_class(tom, [bob], name="8a")
    seventh = make_class(tess)

    taken = post(client_for(tess), f"/classes/{seventh.pk}/enrolments", {"usernames": ["bob"]})
    by_admin = post(client_for(admin), f"/classes/{seventh.pk}/enrolments", {"usernames": ["bob"]})

    assert taken.json() == {"enrolled": [], "not_found": ["bob"]}  # as if there were no bob
    assert by_admin.json()["enrolled"] == ["bob"]


def test_a_student_joins_with_the_code_and_then_sees_the_class_without_it(tess, alice_client):
    seventh = make_class(tess)
    typed = seventh.code[:3].lower() + " " + seventh.code[3:]

    joined = post(alice_client, "/classes/join", {"code": typed})

    assert joined.status_code == 200
    assert (joined.json()["name"], joined.json()["code"]) == ("7b", "")
    assert [c["name"] for c in alice_client.get("/api/v1/classes").json()] == ["7b"]
    assert seventh.students.get().username == "alice"


def test_a_wrong_code_or_a_teacher_joining_is_refused(tess, tom):
    seventh = make_class(tess)

    wrong = post(client_for(make_user("carl")), "/classes/join", {"code": "AAAAAAA"})
    teacher = post(client_for(tom), "/classes/join", {"code": seventh.code})

    assert wrong.status_code == 404 and "No class has this code" in wrong.json()["detail"]
    assert teacher.status_code == 422 and not seventh.teachers.filter(pk=tom.pk).exists()


@pytest.mark.usefixtures("midday")  # an hour's rate window must not turn mid-test
def test_guessing_codes_is_rate_limited(alice_client, settings):
    settings.RATE_LIMIT_CLASS_JOINS = "3/h"
    for _ in range(3):
        post(alice_client, "/classes/join", {"code": "AAAAAAA"})

    refused = post(alice_client, "/classes/join", {"code": "AAAAAAA"})

    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0


def test_the_owner_adds_a_co_teacher_who_then_reaches_the_students(tess, tom, alice):
    seventh = make_class(tess, [alice])

    added = post(client_for(tess), f"/classes/{seventh.pk}/teachers", {"username": "TOM"})
    by_co_teacher = post(client_for(tom), f"/classes/{seventh.pk}/teachers", {"username": "tess"})

    assert added.status_code == 200 and set(added.json()["teacher_ids"]) == {tess.pk, tom.pk}
    assert by_co_teacher.status_code == 403  # co-teachers teach; the owner decides who does
    students = client_for(tom).get(f"/api/v1/accounts/students?class_id={seventh.pk}").json()
    assert [s["username"] for s in students] == ["alice"]
    assert client_for(tom).delete(f"/api/v1/classes/{seventh.pk}").status_code == 403
    assert client_for(tess).delete(f"/api/v1/classes/{seventh.pk}").status_code == 204


def test_only_a_teachers_account_becomes_a_co_teacher(tess_client, tess, alice):
    seventh = make_class(tess)
    refused = post(tess_client, f"/classes/{seventh.pk}/teachers", {"username": "alice"})
    assert refused.status_code == 422 and "No teacher's account" in refused.json()["detail"]


def test_students_go_to_the_one_class_a_teacher_has_or_must_be_told_which(tess, tess_client):
    first = post(tess_client, "/accounts/students", {"usernames": ["Ada"]})
    assert first.status_code == 201
    [mine] = SchoolClass.objects.taught_by(tess)
    assert mine.name == "My class" and [s.username for s in mine.students] == ["ada"]

    make_class(tess, name="8a")
    second = post(tess_client, "/accounts/students", {"usernames": ["Alan"]})

    assert second.status_code == 422 and "class_id" in second.json()["detail"]
    assert not User.objects.filter(username="alan").exists()


def test_the_admin_adds_teachers_whose_passwords_work_at_once(admin, tess_client):
    made = post(client_for(admin), "/accounts/teachers", {"usernames": ["Marie Curie"]})

    assert made.status_code == 201
    [row] = made.json()
    teacher = User.objects.get(username=row["username"])
    assert teacher.is_teacher and not teacher.is_admin and teacher.check_password(row["password"])
    denied = post(tess_client, "/accounts/teachers", {"usernames": ["Eve"]})
    assert denied.status_code == 403


def test_students_teachers_and_the_admin_each_see_their_classes_page(tess, alice, admin):
    seventh = make_class(tess, [alice])
    assert "7b" in client_for(alice).get("/classes/").text
    assert seventh.code not in client_for(alice).get("/classes/").text
    assert seventh.code in client_for(tess).get("/classes/").text
    admin_page = client_for(admin).get("/classes/")
    assert "Add teachers" in admin_page.text and seventh.code in admin_page.text


def test_deleting_a_class_keeps_its_students_accounts(tess, tess_client, alice):
    seventh = make_class(tess, [alice])
    tess_client.post(f"/classes/{seventh.pk}/delete/")
    assert not SchoolClass.objects.exists() and not Enrolment.objects.exists()
    assert User.objects.filter(pk=alice.pk).exists()
