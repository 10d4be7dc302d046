"""HTTPS on the LAN: plain HTTP from another machine goes to HTTPS_PORT, cookies set over TLS
are Secure, and the certificate's fingerprint is shown where students are told the address."""

import re

import pytest
from django.core.management import call_command
from django.test import Client

from apps.accounts import tls
from apps.accounts.tests.test_password_ends_access import LanBrowser
from tests.helpers.users import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _lan(settings):
    settings.ALLOWED_HOSTS = ["192.168.1.20", "localhost", "testserver"]
    settings.HTTPS_PORT = 8443
    settings.HTTPS_REDIRECT = True


def test_plain_http_from_another_machine_is_redirected_to_https():
    student = Client(REMOTE_ADDR="192.168.1.57")

    response = student.get("/accounts/login/?next=/chat/", HTTP_HOST="192.168.1.20:8000")

    assert response.status_code == 302
    assert response.url == "https://192.168.1.20:8443/accounts/login/?next=/chat/"


def test_a_plain_http_post_from_another_machine_keeps_its_method_through_the_redirect():
    student = Client(REMOTE_ADDR="192.168.1.57")

    response = student.post(
        "/accounts/login/",
        {"username": "alice", "password": PASSWORD},
        HTTP_HOST="192.168.1.20:8000",
    )

    assert response.status_code == 307  # the browser posts again, to the HTTPS address
    assert response.url == "https://192.168.1.20:8443/accounts/login/"
    assert "sessionid" not in response.cookies  # nothing was read or set over plain HTTP


def test_an_ipv6_lan_address_keeps_its_brackets(settings):
    settings.ALLOWED_HOSTS = ["[fe80::1]"]
    response = Client(REMOTE_ADDR="fe80::99").get("/", HTTP_HOST="[fe80::1]:8000")
    assert response.url == "https://[fe80::1]:8443/"


def test_a_host_that_is_not_allowed_gets_400_not_a_redirect_to_it():
    response = Client(REMOTE_ADDR="192.168.1.57").get("/", HTTP_HOST="evil.example:8000")
    assert response.status_code == 400


@pytest.mark.parametrize("address", ["127.0.0.1", "::1", "::ffff:127.0.0.1"])
def test_this_machines_own_browser_may_stay_on_plain_http(address):
    response = Client(REMOTE_ADDR=address).get("/accounts/login/", HTTP_HOST="localhost:8000")
    assert response.status_code == 200


def test_the_redirect_can_be_turned_off(settings):
    settings.HTTPS_REDIRECT = False
    response = Client(REMOTE_ADDR="192.168.1.57").get("/accounts/login/")
    assert response.status_code == 200


def test_cookies_set_over_tls_are_secure_and_over_plain_http_are_not(alice):
    lan = LanBrowser(REMOTE_ADDR="192.168.1.57")
    response = lan.post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert response.cookies["sessionid"]["secure"] is True
    assert lan.get("/accounts/settings/").status_code == 200

    local = Client().post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    assert not local.cookies["sessionid"]["secure"]


def test_a_login_form_over_tls_gets_a_secure_csrf_cookie():
    response = LanBrowser(REMOTE_ADDR="192.168.1.57").get("/accounts/login/")
    assert response.cookies["csrftoken"]["secure"] is True


def test_the_classroom_and_the_login_cards_show_the_certificates_fingerprint(
    tess_class, settings, alice, tess_client
):
    call_command("tls_certificate")
    fingerprint = tls.fingerprint()
    assert len(fingerprint.split(":")) == 32

    classroom = tess_client.get(f"/classes/{tess_class.pk}/").text
    cards = tess_client.post(f"/classes/{tess_class.pk}/students/{alice.pk}/reset/").text

    assert fingerprint in classroom
    assert f":{settings.HTTPS_PORT}/accounts/login/" in classroom and "https://" in classroom
    # A card prints it in two lines of 16 bytes, beside the server's address to type.
    assert f"<code>{fingerprint[:47]}</code><code>{fingerprint[48:]}</code>" in cards
    assert re.search(rf">https://[^<>/]+:{settings.HTTPS_PORT}</code>", cards)


def test_without_a_certificate_the_classroom_says_how_to_make_one(tess_class, tess_client):
    assert "manage.py tls_certificate" in tess_client.get(f"/classes/{tess_class.pk}/").text
