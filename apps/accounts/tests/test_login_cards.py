"""Login cards: a QR code logs its student in over HTTPS, after a button; a revoked or replaced
card, or one edited to name someone else, logs no one in and counts as a failed login. The
database keeps only the hash of a card's key; the student sees every card printed and every
login by card."""

import pytest
from axes.models import AccessAttempt
from django.test import Client

from apps.accounts import login_cards, sessions
from apps.accounts.card_keys import key_hash, new_card, opened
from apps.accounts.models import ApiToken, CardEvent, NoCardForTeachers, User
from apps.accounts.tests.counting_hasher import counting_hashes
from apps.accounts.tests.test_password_ends_access import LanBrowser
from tests.helpers.users import PASSWORD, client_for

pytestmark = pytest.mark.django_db

ADDRESS = "10.0.0.7"


@pytest.fixture
def carded(alice) -> User:
    alice.new_card()
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
    browser, response = scan(carded.printed_card)

    assert response.status_code == 302
    assert response.url == "/" and "badge" not in response.url  # the address keeps no key
    assert logged_in_as(browser) == "alice"
    [session] = sessions.sessions_by_user([carded.pk])[carded.pk]
    assert session.by_badge and session.address == ADDRESS


def test_the_database_keeps_only_the_hash_of_a_cards_key(carded):
    _, key = opened(carded.printed_card)
    stored = User.objects.filter(pk=carded.pk).values().get()

    assert stored["card_key_hash"] == key_hash(key)
    assert not any(key in str(value) for value in stored.values())


def test_the_student_sees_when_their_card_was_printed_and_used(carded, tess):
    fresh = User.objects.get(pk=carded.pk)
    fresh.new_card(by=tess)
    scan(fresh.printed_card, address="10.0.0.9")

    page = client_for(carded).get("/accounts/settings/")

    kinds = [(event.kind, event.by, event.address) for event in page.context["card_events"]]
    assert kinds == [("login", None, "10.0.0.9"), ("printed", tess, None), ("printed", None, None)]
    assert "Card printed by tess" in page.text and "10.0.0.9" in page.text


def test_the_card_page_is_never_cached_and_its_address_goes_in_no_referer(carded):
    page = LanBrowser(REMOTE_ADDR=ADDRESS).get(card_path(carded.printed_card))

    assert "no-store" in page["Cache-Control"]
    # The origin only: with "no-referrer" a browser's POST of the button says `Origin: null` and
    # fails the CSRF check (tests/test_login_card_logs.py scans a card in Chromium).
    assert page["Referrer-Policy"] == "strict-origin"


def test_opening_the_cards_address_asks_first_and_logs_no_one_in(carded):
    browser = LanBrowser(REMOTE_ADDR=ADDRESS)

    page = browser.get(card_path(carded.printed_card))

    assert page.status_code == 200
    assert "Log in as alice" in page.text and 'method="post"' in page.text
    assert logged_in_as(browser) is None  # a link preview that fetched it opened nothing


def test_the_card_url_uses_the_https_lan_address(carded, settings):
    url = login_cards.badge_url("https://192.168.1.20:8443", carded.printed_card)
    assert url.startswith("https://192.168.1.20:8443/accounts/badge/?badge=")


def test_a_badge_login_hashes_no_password(carded, settings):
    hasher = counting_hashes(settings)

    browser, response = scan(carded.printed_card)

    assert response.status_code == 302 and logged_in_as(browser) == "alice"
    assert hasher.calls == 0


def test_a_revoked_card_is_refused_and_counts_as_a_failure(carded):
    token = carded.printed_card
    carded.revoke_card()

    browser, response = scan(token)

    assert response.status_code == 403
    assert "does not work" in response.text
    assert logged_in_as(browser) is None
    attempt = AccessAttempt.objects.get(ip_address=ADDRESS)
    assert attempt.username == "alice"
    assert token not in attempt.get_data + attempt.post_data + attempt.path_info


def test_a_new_card_ends_the_sessions_and_tokens_the_old_one_opened_not_the_password_ones(carded):
    by_card, _ = scan(carded.printed_card)
    by_card.post("/accounts/settings/tokens/", {"name": "card laptop"})
    by_password = LanBrowser(REMOTE_ADDR="10.0.0.8")
    by_password.post("/accounts/login/", {"username": "alice", "password": PASSWORD})
    by_password.post("/accounts/settings/tokens/", {"name": "own laptop"})
    assert [t.opened_by_card for t in ApiToken.objects.order_by("pk")] == [True, False]

    User.objects.get(pk=carded.pk).new_card()

    assert logged_in_as(by_card) is None
    assert logged_in_as(by_password) == "alice"
    assert [token.name for token in ApiToken.objects.all()] == ["own laptop"]


def test_a_new_card_stops_the_old_one(carded):
    old = carded.printed_card
    old_browser, _ = scan(old)

    new = User.objects.get(pk=carded.pk).new_card()

    assert new != old
    assert scan(old)[1].status_code == 403
    assert logged_in_as(old_browser) is None
    browser, _ = scan(new)
    assert logged_in_as(browser) == "alice"
    assert User.objects.get(pk=carded.pk).check_password(PASSWORD)  # the password stays


def test_one_students_card_never_logs_in_another(carded, bob):
    bobs_card = bob.new_card()
    value, signature = carded.printed_card.rsplit(":", 1)
    _, key = value.split(".", 1)
    _, bobs_key = opened(bobs_card)
    tampered = [
        f"{bob.pk}.{key}:{signature}",  # alice's signed card, edited to name bob
        f"{bob.pk}.{bobs_key}:{signature}",  # bob's key under alice's signature
        f"{bob.pk}.{bob.card_key_hash}",  # what the database holds, as a card
        f"{bob.pk}.{bobs_key}",
        "x",
    ]
    for n, forged in enumerate(tampered):
        browser, response = scan(forged, address=f"10.0.0.{20 + n}")
        assert response.status_code == 403, forged
        assert logged_in_as(browser) is None
    assert sessions.sessions_by_user([carded.pk, bob.pk]) == {}


def test_a_card_over_plain_http_from_another_machine_is_never_read_nor_repeated(carded, settings):
    settings.ALLOWED_HOSTS = ["192.168.1.20"]
    settings.HTTPS_REDIRECT = True
    token = carded.printed_card
    phone = Client(REMOTE_ADDR="192.168.1.57")

    page = phone.get(card_path(token), HTTP_HOST="192.168.1.20:8000")
    button = phone.post("/accounts/badge/", {"badge": token}, HTTP_HOST="192.168.1.20:8000")

    assert page.status_code == 302
    assert page.url == f"https://192.168.1.20:{settings.HTTPS_PORT}/accounts/badge/"
    assert token not in page.url
    rescan = phone.get("/accounts/badge/", HTTP_HOST="192.168.1.20:8443", secure=True)
    assert "Scan the QR code on your login card again" in rescan.text
    assert button.status_code == 307 and token not in button.url  # the key stays in the body
    assert "sessionid" not in button.cookies
    assert sessions.sessions_by_user([carded.pk]) == {}
    assert not AccessAttempt.objects.exists()


def test_repeated_bad_cards_lock_the_address_out(carded, settings):
    for attempt in range(settings.AXES_FAILURE_LIMIT):
        assert scan(f"bogus{attempt}", address="10.0.0.66")[1].status_code in (403, 429)

    locked = LanBrowser(REMOTE_ADDR="10.0.0.66").get(card_path("bogus"))

    assert locked.status_code == 429
    assert locked["Retry-After"] == "900"
    assert scan(carded.printed_card, address="10.0.0.67")[1].status_code == 302


@pytest.mark.usefixtures("midday")  # a minute's rate window must not turn mid-test
def test_card_scans_are_rate_limited_per_address(carded, settings):
    settings.RATE_LIMIT_BADGES = "2/m"
    token = carded.printed_card
    for _ in range(2):  # two scans, each its page and its button: both log in
        assert scan(token)[1].status_code == 302

    refused = LanBrowser(REMOTE_ADDR=ADDRESS).get(card_path(token))

    assert refused.status_code == 429
    assert "Too many login card scans" in refused.text
    assert int(refused["Retry-After"]) > 0


def test_the_log_in_button_needs_a_csrf_token(carded):
    browser = LanBrowser(REMOTE_ADDR=ADDRESS, enforce_csrf_checks=True)
    response = browser.post("/accounts/badge/", {"badge": carded.printed_card})
    assert response.status_code == 403
    assert logged_in_as(browser) is None


def test_teachers_get_no_card(tess):
    with pytest.raises(NoCardForTeachers):
        tess.new_card()
    token, tess.card_key_hash = new_card(tess.pk)  # a card forced onto a teacher's account
    tess.save()
    assert scan(token)[1].status_code == 403
    assert not CardEvent.objects.exists()
