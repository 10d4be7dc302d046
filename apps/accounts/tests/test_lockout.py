"""Password guessing: five wrong passwords lock the account, whatever address they come from."""

import pytest
from django.test import Client

from conftest import PASSWORD

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


def test_the_lockout_survives_a_changed_address(alice, settings):
    for attempt in range(settings.AXES_FAILURE_LIMIT):
        assert log_in(f"10.0.0.{attempt + 1}", "alice", "guess").status_code in (401, 429)

    # A new address and now even the right password: still locked.
    response = log_in("10.0.0.200", "alice", PASSWORD)

    assert response.status_code == 429
    assert "Too many failed logins" in response.json()["detail"]
    assert response["Retry-After"] == "900"  # the 15 minutes the message names


def test_one_address_guessing_many_accounts_is_locked_too(alice, bob, settings):
    for attempt in range(settings.AXES_FAILURE_LIMIT):
        log_in("10.0.0.9", f"someone{attempt}", "guess")

    assert log_in("10.0.0.9", "bob", PASSWORD).status_code == 429
    assert log_in("10.0.0.10", "bob", PASSWORD).status_code == 200


def test_a_locked_out_person_in_the_browser_gets_the_lockout_page(alice, settings):
    for attempt in range(settings.AXES_FAILURE_LIMIT):
        log_in(f"10.0.1.{attempt + 1}", "alice", "guess")

    page = Client(REMOTE_ADDR="10.0.2.1").post(
        "/accounts/login/", {"username": "alice", "password": PASSWORD}, secure=True
    )

    assert page.status_code == 429
    assert "Too many failed logins" in page.text
    assert page["Retry-After"] == "900"
