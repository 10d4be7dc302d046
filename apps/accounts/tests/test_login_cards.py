"""Login cards: a QR code logs its student in over HTTPS, after a button; a revoked or replaced
card, or one edited to name someone else, logs no one in and counts as a failed login."""

import pytest
from axes.models import AccessAttempt
from django.test import Client

from apps.accounts import login_cards, sessions
from apps.accounts.models import NoBadgeForTeachers, User
from apps.accounts.tests.counting_hasher import counting_hashes
from apps.accounts.tests.test_password_ends_access import LanBrowser
from tests.helpers.users import PASSWORD, client_for

pytestmark = pytest.mark.django_db

ADDRESS = "10.0.0.7"


@pytest.fixture
def carded(alice) -> User:
    alice.issue_badge()
    return alice


def card_path(token: str) -> str:
    return f"/accounts/badge/?badge={token}"


def scan(token: str, address: str = ADDRESS) -> tuple[Client, object]:
    """A phone or laptop on the LAN opens the card's address and presses the button."""
    browser = LanBrowser(REMOTE_ADDR=address)
    page = browser.get(card_path(token))
    if page.status_code != 200:
        return browser, page
    return browser, browser.post("/accounts/badge/", {"badge": token})


def logged_in_as(browser: Client) -> str | None:
    response = browser.get("/accounts/settings/")
    return response.context["user"].username if response.status_code == 200 else None


def test_a_student_logs_in_by_scanning_their_card(carded):
    browser, response = scan(login_cards.token_for(carded))

    assert response.status_code == 302
    assert logged_in_as(browser) == "alice"
    [session] = sessions.sessions_by_user([carded.pk])[carded.pk]
    assert session.by_badge and session.address == ADDRESS


def test_opening_the_cards_address_asks_first_and_logs_no_one_in(carded):
    browser = LanBrowser(REMOTE_ADDR=ADDRESS)

    page = browser.get(card_path(login_cards.token_for(carded)))

    assert page.status_code == 200
    assert "Log in as alice" in page.text and 'method="post"' in page.text
    assert logged_in_as(browser) is None  # a link preview that fetched it opened nothing


def test_the_card_url_uses_the_https_lan_address(carded, settings):
    url = login_cards.badge_url("https://192.168.1.20:8443", carded)
    assert url.startswith("https://192.168.1.20:8443/accounts/badge/?badge=")


def test_a_badge_login_hashes_no_password(carded, settings):
    hasher = counting_hashes(settings)

    browser, response = scan(login_cards.token_for(carded))

    assert response.status_code == 302 and logged_in_as(browser) == "alice"
    assert hasher.calls == 0


def test_a_revoked_card_is_refused_and_counts_as_a_failure(carded, tess_client):
    token = login_cards.token_for(carded)
    tess_client.post(f"/accounts/classroom/students/{carded.pk}/badge/revoke/")

    browser, response = scan(token)

    assert response.status_code == 403
    assert "does not work" in response.text
    assert logged_in_as(browser) is None
    attempt = AccessAttempt.objects.get(ip_address=ADDRESS)
    assert attempt.username == "alice"
    assert token not in attempt.get_data + attempt.post_data + attempt.path_info


def test_revoking_a_card_ends_the_sessions_it_opened_but_not_the_password_ones(carded):
    by_card, _ = scan(login_cards.token_for(carded))
    by_password = LanBrowser(REMOTE_ADDR="10.0.0.8")
    by_password.post("/accounts/login/", {"username": "alice", "password": PASSWORD})

    carded.revoke_badge()

    assert logged_in_as(by_card) is None
    assert logged_in_as(by_password) == "alice"


def test_a_new_card_stops_the_old_one(carded, tess_client):
    old = login_cards.token_for(carded)
    old_browser, _ = scan(old)

    cards = tess_client.post(f"/accounts/classroom/students/{carded.pk}/badge/")

    assert cards.status_code == 200
    assert f"/accounts/classroom/students/{carded.pk}/badge/qr/" in cards.text
    carded.refresh_from_db()
    assert scan(old)[1].status_code == 403
    assert logged_in_as(old_browser) is None
    browser, response = scan(login_cards.token_for(carded))
    assert logged_in_as(browser) == "alice"
    assert carded.check_password(PASSWORD)  # the password stays


def test_one_students_card_never_logs_in_another(carded, bob):
    bob.issue_badge()
    token = login_cards.token_for(carded)
    value, signature = token.rsplit(":", 1)
    _, key = value.split(".", 1)
    bobs_key = bob.badge_key
    tampered = [
        f"{bob.pk}.{key}:{signature}",  # alice's signed card, edited to name bob
        f"{bob.pk}.{bobs_key}:{signature}",  # bob's key under alice's signature
        login_cards.SIGNER.sign(f"{bob.pk}.{key}")[:-1] + "x",
        f"{bob.pk}.{bobs_key}",
        "",
    ]
    for n, forged in enumerate(tampered):
        browser, response = scan(forged, address=f"10.0.0.{20 + n}")
        assert response.status_code == 403, forged
        assert logged_in_as(browser) is None
    assert sessions.sessions_by_user([carded.pk, bob.pk]) == {}


def test_a_card_over_plain_http_from_another_machine_goes_to_https_before_it_is_read(
    carded, settings
):
    settings.ALLOWED_HOSTS = ["192.168.1.20"]
    settings.HTTPS_REDIRECT = True
    token = login_cards.token_for(carded)
    phone = Client(REMOTE_ADDR="192.168.1.57")

    page = phone.get(card_path(token), HTTP_HOST="192.168.1.20:8000")
    button = phone.post("/accounts/badge/", {"badge": token}, HTTP_HOST="192.168.1.20:8000")

    assert page.status_code == 302
    assert page.url == f"https://192.168.1.20:{settings.HTTPS_PORT}{card_path(token)}"
    assert button.status_code == 307
    assert "sessionid" not in button.cookies
    assert sessions.sessions_by_user([carded.pk]) == {}
    assert not AccessAttempt.objects.exists()


def test_repeated_bad_cards_lock_the_address_out(carded, settings):
    for attempt in range(settings.AXES_FAILURE_LIMIT):
        assert scan(f"bogus{attempt}", address="10.0.0.66")[1].status_code in (403, 429)

    locked = LanBrowser(REMOTE_ADDR="10.0.0.66").get(card_path("bogus"))

    assert locked.status_code == 429
    assert locked["Retry-After"] == "900"
    assert scan(login_cards.token_for(carded), address="10.0.0.67")[1].status_code == 302


@pytest.mark.usefixtures("midday")  # a minute's rate window must not turn mid-test
def test_card_scans_are_rate_limited_per_address(carded, settings):
    settings.RATE_LIMIT_BADGES = "2/m"
    token = login_cards.token_for(carded)
    browser = LanBrowser(REMOTE_ADDR=ADDRESS)
    browser.get(card_path(token))
    browser.get(card_path(token))

    refused = browser.get(card_path(token))

    assert refused.status_code == 429
    assert "Too many login card scans" in refused.text
    assert int(refused["Retry-After"]) > 0


def test_the_log_in_button_needs_a_csrf_token(carded):
    browser = LanBrowser(REMOTE_ADDR=ADDRESS, enforce_csrf_checks=True)
    response = browser.post("/accounts/badge/", {"badge": login_cards.token_for(carded)})
    assert response.status_code == 403
    assert logged_in_as(browser) is None


def test_teachers_get_no_card(tess, tess_client):
    with pytest.raises(NoBadgeForTeachers):
        tess.issue_badge()
    assert tess_client.post(f"/accounts/classroom/students/{tess.pk}/badge/").status_code == 404
    api = tess_client.post(f"/api/v1/accounts/students/{tess.pk}/badge")
    assert api.status_code == 404
    tess.badge_key = "forced"
    tess.save()
    assert scan(login_cards.token_for(tess))[1].status_code == 403


def test_the_classroom_revokes_and_prints_cards_for_teachers_only(carded, tess_client, bob):
    page = tess_client.get("/accounts/classroom/")
    assert f"/accounts/classroom/students/{carded.pk}/badge/revoke/" in page.text
    qr = tess_client.get(f"/accounts/classroom/students/{carded.pk}/badge/qr/")
    assert qr["Content-Type"] == "image/svg+xml"
    assert b'<svg xmlns="http://www.w3.org/2000/svg"' in qr.content  # an image on its own

    student = client_for(bob)
    assert student.get(f"/accounts/classroom/students/{carded.pk}/badge/qr/").status_code == 403
    assert (
        student.post(f"/accounts/classroom/students/{carded.pk}/badge/revoke/").status_code == 403
    )
    carded.refresh_from_db()
    assert carded.has_badge


def test_the_revoke_button_needs_a_csrf_token(carded, tess):
    teacher = client_for(tess)
    teacher.handler.enforce_csrf_checks = True
    response = teacher.post(f"/accounts/classroom/students/{carded.pk}/badge/revoke/", secure=True)
    assert response.status_code == 403


def test_the_api_prints_and_revokes_cards(carded, tess_client, alice_client):
    old = login_cards.token_for(carded)

    printed = tess_client.post(f"/api/v1/accounts/students/{carded.pk}/badge")

    assert printed.status_code == 200
    url = printed.json()["badge_url"]
    assert old not in url and "/accounts/badge/?badge=" in url
    assert tess_client.delete(f"/api/v1/accounts/students/{carded.pk}/badge").status_code == 204
    carded.refresh_from_db()
    assert not carded.has_badge
    denied = alice_client.post(f"/api/v1/accounts/students/{carded.pk}/badge")
    assert denied.status_code == 403 and "detail" in denied.json()


def test_students_without_a_card_get_theirs_printed_at_once(carded, bob, tess_client):
    old = login_cards.token_for(carded)

    cards = tess_client.post("/accounts/classroom/badges/")

    assert [student.username for student, _ in cards.context["credentials"]] == ["bob"]
    bob.refresh_from_db()
    assert bob.has_badge and scan(old)[1].status_code == 302  # alice's card still works
    again = tess_client.post("/accounts/classroom/badges/", follow=True)
    assert "Every student has a login card already." in again.text
