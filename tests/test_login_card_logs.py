"""A login card printed through the API and scanned on a real server from another machine of
the network, as a phone does: Chromium opens the card's HTTPS address and presses its button,
and the same card is opened over plain HTTP. The card's key ends up in no log file of the run,
in no redirect, in no Referer and not in the address the student lands on
(docs/classroom.md#login-cards)."""

import json
import shutil
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urljoin, urlsplit

import pytest
from playwright.sync_api import sync_playwright

from cognivault_site.network import lan_addresses
from tests.helpers.browser import CHROMIUM_ARGS
from tests.helpers.running_app import TEACHER, RunningApp
from tests.helpers.slowness import BROWSER_MS, REPLY

pytestmark = [pytest.mark.services, pytest.mark.browser]

# The cards point at this machine's first LAN address (apps/accounts/lan.py); a client here that
# connects to it comes from that address, as another machine on the network would.
LAN = next(iter(lan_addresses()), None)


@dataclass
class Scan:
    card: str  # the card's address, as the API printed it
    key: str  # the token after `badge=`
    card_page: dict[str, str] = field(default_factory=dict)  # its response headers
    landed: str = ""  # the browser's address after the login
    settings: str = ""  # the student's settings page, read in the same browser afterwards
    sent: list[tuple[str, str | None]] = field(default_factory=list)  # (url, Referer) each
    plain_http: str = ""  # where plain HTTP from the network sends the card's address
    logs: dict[str, str] = field(default_factory=dict)  # every log file of the run


class NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def api(app: RunningApp, path: str, body: dict, token: str = "") -> object:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(app.url + path, json.dumps(body).encode(), headers)
    with urllib.request.urlopen(request, timeout=REPLY) as response:
        return json.load(response)


def print_card(app: RunningApp) -> Scan:
    """The teacher (the admin here) makes four students, whose passwords go to the jobs worker,
    and prints their cards; the first card."""
    username, password = TEACHER
    token = api(app, "/api/v1/auth/token", {"username": username, "password": password})["token"]
    names = ["Ada Lovelace", "Bo Li", "Carla Wide", "Dan Ek"]
    made = api(app, "/api/v1/accounts/students", {"usernames": names}, token)
    card = made[0]["badge_url"]
    return Scan(card=card, key=parse_qs(urlsplit(card).query)["badge"][0])


def scan_with_a_phone(scan: Scan) -> None:
    """Chromium opens the card's address and presses "Log in as ...", following the redirect."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS
        )
        context = browser.new_context(ignore_https_errors=True)  # self-signed
        context.set_default_timeout(BROWSER_MS)
        page = context.new_page()
        page.on("request", lambda sent: scan.sent.append((sent.url, sent.headers.get("referer"))))
        opened = page.goto(scan.card)
        scan.card_page = opened.headers
        with page.expect_response(lambda response: response.request.method == "POST") as post:
            page.get_by_role("button", name="Log in as Ada Lovelace").click()
        # A refused POST shows why (a CSRF check, the lockout) instead of a timeout below.
        assert post.value.status == 302, post.value.text()[:500]
        page.wait_for_url(lambda url: "/accounts/badge/" not in url)
        page.wait_for_load_state()
        scan.landed = page.url
        page.goto(urljoin(page.url, "/accounts/settings/"))
        scan.settings = page.locator("main").inner_text()
        browser.close()


def open_over_plain_http(scan: Scan, app: RunningApp) -> None:
    """The card's address typed as plain http://<lan-ip>:PORT on the network."""
    port = urlsplit(app.url).port
    parts = urlsplit(scan.card)
    plain = f"http://{LAN}:{port}{parts.path}?{parts.query}"
    with pytest.raises(urllib.error.HTTPError) as redirected:
        urllib.request.build_opener(NoRedirects).open(plain, timeout=REPLY)
    assert redirected.value.code == 302
    scan.plain_http = redirected.value.headers["Location"]


@pytest.fixture(scope="module")
def scanned(start_app) -> Scan:
    """The whole run, then the app stopped: every log file is complete when it is read."""
    if LAN is None:
        pytest.skip("this machine has no address but loopback to play another machine from")
    with start_app(queues=("celery",), lan=LAN) as app:
        scan = print_card(app)
        scan_with_a_phone(scan)
        open_over_plain_http(scan, app)
    scan.logs = {
        path.name: path.read_text(errors="replace") for path in app.data_dir.rglob("*.log")
    }
    return scan


def test_the_card_points_at_this_machines_https_address(scanned):
    assert scanned.card.startswith(f"https://{LAN}:")
    assert urlsplit(scanned.card).path == "/accounts/badge/"


def test_a_scanned_card_logs_its_student_in_and_the_address_keeps_no_key(scanned):
    assert "Logged in as ada.lovelace" in scanned.settings
    assert "Logged in by card" in scanned.settings and LAN in scanned.settings  # from the network
    assert urlsplit(scanned.landed).netloc == urlsplit(scanned.card).netloc
    assert "/accounts/" not in scanned.landed
    assert scanned.key not in scanned.landed and "badge" not in scanned.landed


def test_the_card_page_is_never_cached_and_its_address_is_in_no_referer(scanned):
    assert "no-store" in scanned.card_page["cache-control"]
    assert scanned.card_page["referrer-policy"] == "strict-origin"
    referers = [referer for _, referer in scanned.sent if referer]
    assert referers  # the page's styles and scripts, and its button's POST
    assert not any(scanned.key in referer or "badge=" in referer for referer in referers)


def test_plain_http_from_the_network_is_sent_to_https_without_the_key(scanned):
    https = urlsplit(scanned.card)
    assert scanned.plain_http == f"https://{https.netloc}/accounts/badge/"


def test_daphne_logs_the_card_route_without_its_query(scanned):
    web = scanned.logs["web.log"]
    # The card's page over HTTPS and over plain HTTP, then the button's POST.
    assert web.count('"GET /accounts/badge/?[left out]"') == 2
    assert '"POST /accounts/badge/" 302' in web


def test_the_key_is_in_no_log_file_of_the_run(scanned):
    assert {"web.log", "worker.log"} <= scanned.logs.keys()
    secret = scanned.key.split(".", 1)[1].split(":")[0]  # the random part, without id or signature
    leaked = [name for name, text in scanned.logs.items() if scanned.key in text or secret in text]
    assert leaked == []
