"""Creating a class's accounts: the request makes the accounts, passwords and login cards
without hashing a password; a worker stores the hashes, and until it is done the batch says so."""

import pytest
from django.test import Client
from kombu.exceptions import OperationalError

from apps.accounts import tasks
from apps.accounts.models import StudentBatch, User
from apps.accounts.tests.counting_hasher import counting_hashes
from apps.accounts.tests.test_password_ends_access import LanBrowser
from apps.classes.models import SchoolClass
from tests.helpers.classes import make_class
from tests.helpers.users import client_for

pytestmark = pytest.mark.django_db

CLASS = [f"Student {n:03d}" for n in range(200)]


def class_page(client: Client) -> str:
    """The page of the one class the API made the accounts in."""
    return client.get(f"/classes/{SchoolClass.objects.get().pk}/").text


def create_by_api(client: Client, names: list[str], capture) -> tuple[object, list]:
    with capture() as queued:
        response = client.post(
            "/api/v1/accounts/students", {"usernames": names}, content_type="application/json"
        )
    return response, queued


def test_creating_200_students_hashes_no_password_in_the_request(
    tess_client, settings, django_capture_on_commit_callbacks
):
    hasher = counting_hashes(settings)

    response, queued = create_by_api(tess_client, CLASS, django_capture_on_commit_callbacks)

    assert response.status_code == 201
    created = response.json()
    assert len(created) == 200 and User.objects.students().count() == 200
    assert hasher.calls == 0
    assert len(queued) == 1  # the worker's task, after the commit
    batch = StudentBatch.objects.get()
    assert (batch.status, batch.total, batch.hashed) == ("hashing", 200, 0)
    assert all(row["password"] not in batch.sealed_passwords for row in created)

    tasks.hash_passwords(batch.pk)  # what the worker runs

    batch.refresh_from_db()
    assert (batch.status, batch.hashed, batch.sealed_passwords) == ("ready", 200, "")
    assert hasher.calls == 200
    for row in created[::50]:
        assert User.objects.get(username=row["username"]).check_password(row["password"])


def test_the_class_page_makes_200_cards_at_once_and_shows_the_progress(
    tess, tess_client, settings, django_capture_on_commit_callbacks
):
    hasher = counting_hashes(settings)
    seventh = make_class(tess)

    with django_capture_on_commit_callbacks():
        page = tess_client.post(f"/classes/{seventh.pk}/students/", {"names": "\n".join(CLASS)})

    assert page.status_code == 200 and hasher.calls == 0
    assert len(page.context["credentials"]) == 200
    assert set(seventh.students) == set(User.objects.students())
    batch = StudentBatch.objects.get()
    assert f'hx-get="/classes/{seventh.pk}/batches/{batch.pk}/"' in page.text
    assert "0 of 200 done" in page.text
    assert page.text.count('aria-label="Login QR code for') == 200  # drawn into the sheet
    assert "no-store" in page["Cache-Control"]

    tasks.hash_passwords(batch.pk)
    progress = tess_client.get(f"/classes/{seventh.pk}/batches/{batch.pk}/", HTTP_HX_REQUEST="true")
    assert "All 200 passwords work now" in progress.text
    assert "hx-get" not in progress.text  # stops asking


def test_a_login_card_works_before_the_passwords_are_stored_and_stays_logged_in_after(
    tess_client, django_capture_on_commit_callbacks
):
    response, _ = create_by_api(tess_client, CLASS[:10], django_capture_on_commit_callbacks)
    first = response.json()[0]
    token = first["badge_url"].split("badge=", 1)[1]
    phone = LanBrowser(REMOTE_ADDR="10.0.0.7")
    phone.get(f"/accounts/badge/?badge={token}")
    assert phone.post("/accounts/badge/", {"badge": token}).status_code == 302

    tasks.hash_passwords(StudentBatch.objects.get().pk)

    assert phone.get("/accounts/settings/").status_code == 200
    laptop = LanBrowser(REMOTE_ADDR="10.0.0.8")
    login = laptop.post(
        "/accounts/login/", {"username": first["username"], "password": first["password"]}
    )
    assert login.status_code == 302


def test_an_unfinished_class_is_listed_on_the_classroom_page_and_queued_again(
    tess_client, django_capture_on_commit_callbacks
):
    create_by_api(tess_client, CLASS[:20], django_capture_on_commit_callbacks)
    batch = StudentBatch.objects.get()

    page = class_page(tess_client)
    assert "Classes still being created" in page
    assert "passwords stored for 0 of 20" in page
    with django_capture_on_commit_callbacks() as queued:
        retry = f"/classes/{SchoolClass.objects.get().pk}/batches/{batch.pk}/retry/"
        retried = tess_client.post(retry, follow=True)
    assert len(queued) == 1
    assert "queued again" in retried.text

    tasks.hash_passwords(batch.pk)
    tasks.hash_passwords(batch.pk)  # a second delivery is harmless
    assert "Classes still being created" not in class_page(tess_client)


def test_a_password_reset_before_the_worker_runs_is_kept(
    tess_client, django_capture_on_commit_callbacks
):
    response, _ = create_by_api(tess_client, CLASS[:5], django_capture_on_commit_callbacks)
    student = User.objects.get(username=response.json()[0]["username"])
    reset = tess_client.post(f"/api/v1/accounts/students/{student.pk}/password").json()

    tasks.hash_passwords(StudentBatch.objects.get().pk)

    student.refresh_from_db()
    assert student.check_password(reset["password"])
    assert not student.check_password(response.json()[0]["password"])


def test_a_batch_whose_passwords_cannot_be_read_back_says_what_to_do(
    tess, tess_client, settings, django_capture_on_commit_callbacks
):
    create_by_api(tess_client, CLASS[:5], django_capture_on_commit_callbacks)
    settings.SECRET_KEY = "another-secret-key-" + "x" * 40

    batch = tasks.batches.hash_passwords(StudentBatch.objects.get().pk)

    assert batch.status == "failed" and "Reset these students' passwords" in batch.error
    assert "SECRET_KEY changed since" in class_page(client_for(tess))


def test_a_few_latecomers_get_working_passwords_at_once(tess_client):
    response = tess_client.post(
        "/api/v1/accounts/students", {"usernames": ["Ada", "Alan"]}, content_type="application/json"
    )
    for row in response.json():
        assert User.objects.get(username=row["username"]).check_password(row["password"])
    assert StudentBatch.objects.get().ready


def test_the_api_lists_the_batches_for_teachers_only(
    tess_client, alice_client, django_capture_on_commit_callbacks
):
    create_by_api(tess_client, CLASS[:8], django_capture_on_commit_callbacks)

    [batch] = tess_client.get("/api/v1/accounts/batches").json()

    assert (batch["status"], batch["total"], batch["hashed"]) == ("hashing", 8, 0)
    denied = alice_client.get("/api/v1/accounts/batches")
    assert denied.status_code == 403 and "detail" in denied.json()


def test_without_a_reachable_worker_queue_the_cards_still_show_and_the_class_is_listed(
    tess, tess_client, monkeypatch, django_capture_on_commit_callbacks
):
    def broker_down(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(tasks.hash_passwords, "delay", broker_down)
    seventh = make_class(tess)
    with django_capture_on_commit_callbacks(execute=True):
        names = {"names": "\n".join(CLASS[:10])}
        page = tess_client.post(f"/classes/{seventh.pk}/students/", names)

    assert page.status_code == 200 and len(page.context["credentials"]) == 10
    assert "passwords stored for 0 of 10" in class_page(tess_client)


def test_a_worker_that_starts_queues_the_unfinished_classes_again(
    tess_client, monkeypatch, django_capture_on_commit_callbacks
):
    create_by_api(tess_client, CLASS[:10], django_capture_on_commit_callbacks)
    create_by_api(tess_client, ["Ada", "Alan"], django_capture_on_commit_callbacks)  # ready
    queued = []
    monkeypatch.setattr(tasks.hash_passwords, "delay", queued.append)

    assert tasks.requeue_unfinished() == queued == [StudentBatch.objects.get(total=10).pk]


def test_usernames_spell_out_umlauts_and_nordic_letters_as_those_languages_do(tess_client):
    names = ["Lena Müller", "Emre Özdemir", "Jörg Weiß", "Søren Ærø", "Zoë Brontë", "Łukasz Nowak"]
    response = tess_client.post(
        "/api/v1/accounts/students", {"usernames": names}, content_type="application/json"
    )

    assert [row["username"] for row in response.json()] == [
        "lena.mueller",
        "emre.oezdemir",
        "joerg.weiss",
        "soeren.aeroe",
        "zoe.bronte",
        "lukasz.nowak",
    ]
