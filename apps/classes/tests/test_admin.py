"""The Django admin (`/admin/`, the admin's alone): a school's classes with their enrolments,
the enrolments, and every login card printed, revoked and used; never a card key's hash
(docs/classroom.md#who-reaches-what)."""

import pytest

from apps.accounts.models import User
from tests.helpers.users import PASSWORD, client_for

pytestmark = pytest.mark.django_db

CHANGELISTS = [
    "/admin/classes/schoolclass/",
    "/admin/classes/enrolment/",
    "/admin/accounts/cardevent/",
]


@pytest.fixture
def admin(tess_class) -> User:
    """The school's admin; alice's card printed by tess and used once."""
    tess = tess_class.owner
    alice = tess_class.students.get(username="alice")
    alice.new_card(by=tess)
    alice.card_events.create(kind="login", address="10.0.0.7")
    return User.objects.create_superuser("head", password=PASSWORD)


@pytest.mark.parametrize("path", CHANGELISTS)
def test_the_admin_sees_classes_enrolments_and_card_events(admin, path):
    assert client_for(admin).get(path).status_code == 200


def test_a_class_shows_its_students_and_teachers_inline(admin, tess_class):
    page = client_for(admin).get(f"/admin/classes/schoolclass/{tess_class.pk}/change/")

    assert page.status_code == 200
    assert all(name in page.text for name in ("alice", "bob", "tess"))
    listed = client_for(admin).get("/admin/classes/schoolclass/")
    assert "7b" in listed.text and tess_class.code in listed.text


def test_card_events_show_who_printed_a_card_and_where_it_was_used(admin):
    page = client_for(admin).get("/admin/accounts/cardevent/")

    assert "10.0.0.7" in page.text
    assert [event[:2] for event in page.context["cl"].queryset.values_list("kind", "by")] == [
        ("login", None),
        ("printed", User.objects.get(username="tess").pk),
    ]


def test_no_admin_page_shows_a_card_keys_hash(admin):
    alice = User.objects.get(username="alice")
    assert alice.card_key_hash
    pages = [
        *CHANGELISTS,
        "/admin/accounts/user/",
        f"/admin/accounts/user/{alice.pk}/change/",
        f"/admin/accounts/cardevent/{alice.card_events.first().pk}/change/",
    ]
    for path in pages:
        page = client_for(admin).get(path)
        assert page.status_code == 200, path
        assert alice.card_key_hash not in page.text, path


@pytest.mark.parametrize("path", CHANGELISTS)
def test_a_teacher_sees_none_of_it(tess_class, path):
    assert client_for(tess_class.owner).get(path).status_code == 403
