import re

import pytest

from apps.accounts.models import ApiToken
from tests.helpers.isolation import assert_only_owner_can_reach
from tests.helpers.users import PASSWORD

pytestmark = pytest.mark.django_db


def test_a_token_from_username_and_password_opens_the_api(client, alice):
    response = client.post(
        "/api/v1/auth/token",
        {"username": "alice", "password": PASSWORD},
        content_type="application/json",
    )
    assert response.status_code == 200
    token = response.json()["token"]

    listed = client.get("/api/v1/auth/tokens", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert listed.status_code == 200
    assert [t["prefix"] for t in listed.json()] == [token[:7]]


def test_a_token_name_longer_than_the_column_gets_a_422_and_no_token(client, alice):
    response = client.post(
        "/api/v1/auth/token",
        {"username": "alice", "password": PASSWORD, "name": "x" * 101},
        content_type="application/json",
    )
    assert response.status_code == 422
    assert "detail" in response.json()
    assert not ApiToken.objects.exists()


def test_the_secret_is_never_stored(alice):
    token, raw = ApiToken.objects.issue(alice, "script")
    assert raw not in token.key_hash
    assert ApiToken.objects.authenticate(raw) == alice
    assert ApiToken.objects.authenticate(raw + "x") is None


def test_a_wrong_password_gets_a_json_401(client, alice):
    response = client.post(
        "/api/v1/auth/token",
        {"username": "alice", "password": "nope"},
        content_type="application/json",
    )
    assert response.status_code == 401
    assert response.json() == {"detail": "Invalid username or password."}


def test_password_guessing_is_locked_out(client, alice, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        client.post(
            "/api/v1/auth/token",
            {"username": "alice", "password": "guess"},
            content_type="application/json",
        )
    response = client.post(
        "/api/v1/auth/token",
        {"username": "alice", "password": PASSWORD},
        content_type="application/json",
    )
    assert response.status_code == 429
    assert "try again" in response.json()["detail"]


def test_the_api_refuses_no_token_and_a_bad_token(client, alice):
    assert client.get("/api/v1/auth/tokens").status_code == 401
    bad = client.get("/api/v1/auth/tokens", HTTP_AUTHORIZATION="Bearer cv_forged")
    assert bad.status_code == 401
    assert "detail" in bad.json()


def test_a_revoked_token_stops_working(client, alice):
    token, raw = ApiToken.objects.issue(alice, "script")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {raw}"}
    assert client.delete(f"/api/v1/auth/tokens/{token.pk}", **auth).status_code == 204
    assert client.get("/api/v1/auth/tokens", **auth).status_code == 401


def test_the_settings_page_creates_a_token_and_shows_it_once(alice_client, alice):
    response = alice_client.post(
        "/accounts/settings/tokens/", {"name": "laptop"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    token = ApiToken.objects.get(user=alice)
    shown = re.search(r'class="new-token">(cv_[^<]+)<', response.text).group(1)
    assert ApiToken.objects.authenticate(shown) == alice
    assert 'id="token-list"' in response.text
    assert shown not in alice_client.get("/accounts/settings/").text
    assert token.name == "laptop"


def test_a_token_name_of_only_spaces_is_refused_with_a_message_in_the_form(alice_client):
    response = alice_client.post(
        "/accounts/settings/tokens/", {"name": "   "}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 422  # swapped in by htmx, yet an error
    assert 'id="token-list"' in response.text
    assert "This field is required." in response.text
    assert not ApiToken.objects.exists()


def test_session_api_calls_need_the_csrf_token(alice):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    response = client.post(
        "/api/v1/accounts/students", {"usernames": ["x"]}, content_type="application/json"
    )
    assert response.status_code == 403


def test_a_write_with_a_wrong_revoked_or_no_token_is_a_401_not_a_csrf_failure(alice):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)  # as a script's: no session, no CSRF cookie
    token, raw = ApiToken.objects.issue(alice, "script")
    token.delete()
    for headers in (
        {"HTTP_AUTHORIZATION": f"Bearer {raw}"},
        {"HTTP_AUTHORIZATION": "Bearer x"},
        {},
    ):
        response = client.post(
            "/api/v1/chat/sessions", {"title": "x"}, content_type="application/json", **headers
        )
        assert response.status_code == 401, headers
        assert "CSRF" not in response.json()["detail"]


def test_bob_cannot_revoke_alices_token(alice, bob_client, client):
    token, raw = ApiToken.objects.issue(alice, "script")
    assert_only_owner_can_reach(
        f"/accounts/settings/tokens/{token.pk}/revoke/", bob_client, allowed_methods=["post"]
    )
    assert_only_owner_can_reach(
        f"/api/v1/auth/tokens/{token.pk}", bob_client, allowed_methods=["delete"]
    )
    assert ApiToken.objects.authenticate(raw) == alice
