"""Password guessing: failures count per username and address together, so a student cannot lock
the teacher out; one address guessing at many accounts is locked too; a teacher unlocks a student.
"""

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient, Client

from apps.accounts.tests.counting_hasher import counting_hashes
from apps.accounts.tests.test_password_ends_access import LanBrowser
from tests.helpers.users import PASSWORD, client_for

pytestmark = pytest.mark.django_db


def log_in(address: str, username: str, password: str):
    client = Client(REMOTE_ADDR=address)
    # Another machine reaches the app over HTTPS (plain HTTP is redirected there).
    return client.post(
        "/api/v1/auth/token",
        {"username": username, "password": password},
        content_type="application/json",
        secure=True,
    )


def log_in_page(address: str, username: str, password: str):
    return Client(REMOTE_ADDR=address).post(
        "/accounts/login/", {"username": username, "password": password}, secure=True
    )


def log_in_served(address: str, path: str, username: str, password: str):
    """A login as the app is served, through the ASGI handler (daphne), whose middleware runs
    asynchronously."""
    client = AsyncClient(REMOTE_ADDR=address)
    credentials = {"username": username, "password": password}
    if path.startswith("/api/"):
        return async_to_sync(client.post)(
            path, credentials, content_type="application/json", secure=True
        )
    return async_to_sync(client.post)(path, credentials, secure=True)


def test_a_students_guesses_at_the_teacher_leave_the_teacher_logging_in_from_their_own_address(
    tess, settings
):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in_page("10.0.0.66", "tess", "guess")
        log_in("10.0.0.66", "tess", "guess")

    assert log_in_page("10.0.0.1", "tess", PASSWORD).status_code == 302
    assert log_in("10.0.0.1", "tess", PASSWORD).status_code == 200


def test_the_same_username_and_address_are_locked_after_the_limit(alice, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        assert log_in("10.0.0.7", "alice", "guess").status_code in (401, 429)

    # Now even the right password: still locked, from that address.
    response = log_in("10.0.0.7", "alice", PASSWORD)

    assert response.status_code == 429
    assert "Too many failed logins" in response.json()["detail"]
    assert response["Retry-After"] == "900"  # the 15 minutes the message names


def test_tries_while_locked_do_not_start_the_lockout_again_and_it_ends_when_it_said(
    alice, settings, midday
):
    """A classmate's guess every few minutes cannot keep an account locked."""
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in("10.0.0.7", "alice", "guess")
    midday.shift(14 * 60)

    refused = log_in("10.0.0.7", "alice", PASSWORD)
    log_in("10.0.0.7", "alice", "another guess")

    assert refused.status_code == 429
    assert refused["Retry-After"] == "60"
    assert "try again in 1 minute." in refused.json()["detail"]
    midday.shift(61)
    assert log_in("10.0.0.7", "alice", PASSWORD).status_code == 200


@pytest.mark.parametrize("path", ["/api/v1/auth/token", "/accounts/login/"])
def test_a_lockout_served_over_asgi_counts_down_too(alice, settings, midday, path):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in_served("10.0.0.7", path, "alice", "guess")
    midday.shift(6 * 60)

    refused = log_in_served("10.0.0.7", path, "alice", PASSWORD)

    assert refused.status_code == 429
    assert refused["Retry-After"] == "540"
    assert "again in 9 minutes" in refused.text


def test_a_refused_login_while_locked_hashes_no_password(alice, settings):
    hasher = counting_hashes(settings)
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in("10.0.0.7", "alice", "guess")
    hasher.calls = 0

    assert log_in("10.0.0.7", "alice", PASSWORD).status_code == 429
    assert log_in_page("10.0.0.7", "alice", "another guess").status_code == 429
    assert hasher.calls == 0  # a flood of guesses while locked costs no CPU for hashing


def test_a_login_between_guesses_does_not_wipe_the_guesses_at_another_account(
    alice, tess, settings
):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        log_in("10.0.0.7", "tess", "guess")
    assert log_in("10.0.0.7", "alice", PASSWORD).status_code == 200

    log_in("10.0.0.7", "tess", "guess")

    assert log_in("10.0.0.7", "tess", PASSWORD).status_code == 429


def test_one_address_guessing_many_accounts_is_locked_too(alice, bob, settings):
    for attempt in range(settings.AXES_ADDRESS_FAILURE_LIMIT):
        assert log_in("10.0.0.9", f"someone{attempt}", "guess").status_code in (401, 429)

    assert log_in("10.0.0.9", "bob", PASSWORD).status_code == 429
    assert log_in("10.0.0.10", "bob", PASSWORD).status_code == 200


def test_a_locked_out_person_in_the_browser_gets_the_lockout_page(alice, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in("10.0.1.1", "alice", "guess")

    page = log_in_page("10.0.1.1", "alice", PASSWORD)

    assert page.status_code == 429
    assert "Too many failed logins" in page.text
    assert page["Retry-After"] == "900"


def test_the_teacher_unlocks_a_locked_student(tess_class, alice, tess_client, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in("10.0.1.1", "alice", "guess")
    classroom = tess_client.get(f"/classes/{tess_class.pk}/")
    assert f"/classes/{tess_class.pk}/students/{alice.pk}/unlock/" in classroom.text

    response = tess_client.post(
        f"/classes/{tess_class.pk}/students/{alice.pk}/unlock/", follow=True
    )

    assert "alice can log in again." in response.text
    assert f"/students/{alice.pk}/unlock/" not in response.text
    assert log_in("10.0.1.1", "alice", PASSWORD).status_code == 200


def test_the_unlock_button_needs_a_csrf_token(tess_class, alice, tess):
    client = client_for(tess)
    client.handler.enforce_csrf_checks = True

    response = client.post(f"/classes/{tess_class.pk}/students/{alice.pk}/unlock/", secure=True)

    assert response.status_code == 403


def test_a_student_cannot_unlock_anyone(tess_class, alice, bob, bob_client, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in("10.0.1.1", "alice", "guess")

    response = bob_client.post(f"/classes/{tess_class.pk}/students/{alice.pk}/unlock/")

    assert response.status_code == 403
    assert log_in("10.0.1.1", "alice", PASSWORD).status_code == 429


def test_an_address_locked_for_guessing_still_logs_its_class_in_by_card(alice, bob, settings):
    bob.new_card()
    for attempt in range(settings.AXES_ADDRESS_FAILURE_LIMIT):
        log_in("10.0.0.9", f"someone{attempt}", "guess")
    assert log_in("10.0.0.9", "alice", PASSWORD).status_code == 429

    card = LanBrowser(REMOTE_ADDR="10.0.0.9")
    asked = card.get(f"/accounts/badge/?badge={bob.printed_card}")
    card.post("/accounts/badge/", {"badge": bob.printed_card})

    assert asked.status_code == 200
    assert card.get("/accounts/settings/").context["user"].username == "bob"
