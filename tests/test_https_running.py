"""daphne as the Procfile starts it, with the TLS endpoint and the certificate from
`manage.py tls_certificate`: the fingerprint the Classroom page shows is the one the server
presents, cookies set over TLS are Secure, and a login card logs its student in over TLS."""

import hashlib
import http.cookiejar
import os
import re
import ssl
import subprocess
import sys
import urllib.parse
import urllib.request

import pytest

from tests.helpers.running_app import WEB_SERVER
from tests.helpers.services import ROOT, free_port, spawn, stop, wait_until
from tests.helpers.slowness import REPLY
from tests.postgres import database_env

pytestmark = pytest.mark.services


@pytest.fixture
def tls_app(redis_url, tmp_path):
    port, https_port = free_port(), free_port()
    env = {
        **os.environ,
        "DATA_DIR": str(tmp_path),
        "REDIS_URL": redis_url,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "HTTPS_PORT": str(https_port),
        "DJANGO_SETTINGS_MODULE": "cognivault_site.settings",
        "WEB_PROCESSES": "1",
        **database_env(),
    }

    def manage(*args: str) -> str:
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout

    manage("migrate", "--noinput")
    printed = manage("tls_certificate")
    tls = tmp_path / "tls"
    endpoint = f"ssl:{https_port}:interface=127.0.0.1"
    endpoint += f":privateKey={tls}/key.pem:certKey={tls}/cert.pem"  # as in the Procfile
    daphne = [*WEB_SERVER, "-b", "127.0.0.1", "-p", str(port)]
    daphne += ["-e", endpoint, "cognivault_site.asgi:application"]
    process = spawn(daphne, env, tmp_path / "web.log")
    insecure = ssl.create_default_context()
    insecure.check_hostname, insecure.verify_mode = False, ssl.CERT_NONE
    https = f"https://127.0.0.1:{https_port}"
    try:
        wait_until(
            lambda: urllib.request.urlopen(
                https + "/api/v1/health", context=insecure, timeout=REPLY
            ),
            timeout=60,
            what="daphne over TLS",
        )
        yield {
            "http": f"http://127.0.0.1:{port}",
            "https": https,
            "https_port": https_port,
            "printed": printed,
            "context": insecure,
            "manage": manage,
        }
    finally:
        stop(process)


def cookies(response) -> list[str]:
    return response.headers.get_all("Set-Cookie") or []


def test_the_printed_fingerprint_is_the_served_certificates(tls_app):
    served = ssl.get_server_certificate(("127.0.0.1", tls_app["https_port"]))
    digest = hashlib.sha256(ssl.PEM_cert_to_DER_cert(served)).hexdigest().upper()
    expected = ":".join(digest[i : i + 2] for i in range(0, len(digest), 2))
    assert f"fingerprint: {expected}" in tls_app["printed"]


def test_cookies_are_secure_over_tls_and_plain_on_this_machines_http(tls_app):
    with urllib.request.urlopen(
        tls_app["https"] + "/accounts/login/", context=tls_app["context"], timeout=REPLY
    ) as response:
        over_tls = cookies(response)
    with urllib.request.urlopen(tls_app["http"] + "/accounts/login/", timeout=REPLY) as response:
        plain = cookies(response)

    assert any(c.startswith("csrftoken=") and "Secure" in c for c in over_tls)
    assert any(c.startswith("csrftoken=") and "Secure" not in c for c in plain)


CARD = """
from apps.accounts import login_cards
from apps.accounts.models import User
student = User.objects.create_user("ada", password="x" * 12)
print(login_cards.badge_url("", student.new_card()))
"""


def test_a_login_card_logs_its_student_in_over_tls(tls_app):
    card = tls_app["https"] + tls_app["manage"]("shell", "-c", CARD).strip().splitlines()[-1]
    jar = http.cookiejar.CookieJar()
    browser = urllib.request.build_opener(
        urllib.request.HTTPSHandler(context=tls_app["context"]),
        urllib.request.HTTPCookieProcessor(jar),
    )
    with browser.open(card, timeout=REPLY) as page:
        text = page.read().decode()
    assert "Log in as ada" in text
    assert not any(cookie.name == "sessionid" for cookie in jar)  # opening it logs no one in

    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', text)[1]
    token = urllib.parse.parse_qs(urllib.parse.urlsplit(card).query)["badge"][0]
    body = urllib.parse.urlencode({"csrfmiddlewaretoken": csrf, "badge": token}).encode()
    button = urllib.request.Request(
        tls_app["https"] + "/accounts/badge/", data=body, headers={"Referer": card}
    )
    with browser.open(button, timeout=REPLY) as response:
        assert response.url.startswith(tls_app["https"])  # followed the redirect, logged in
    session = next(cookie for cookie in jar if cookie.name == "sessionid")
    assert session.secure
    with browser.open(tls_app["https"] + "/accounts/settings/", timeout=REPLY) as settings_page:
        assert settings_page.url.endswith("/accounts/settings/")
