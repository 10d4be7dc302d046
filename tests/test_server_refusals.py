"""What the web server itself (cognivault_site/webserver.py) or Django refuses, before a view runs,
still gets an answer with a status and a message: JSON `{"detail": ...}` under /api/, text or
the page elsewhere."""

import json
import socket
import urllib.error
import urllib.request
from urllib.parse import urlsplit

import pytest

from tests.helpers.slowness import REPLY
from tests.test_api_fuzzing import TEACHER, token_for

pytestmark = pytest.mark.services


@pytest.fixture(scope="module")
def app(start_app):
    with start_app(worker=False) as app:
        yield app


def send(app, request: bytes) -> tuple[str, dict[str, str], bytes]:
    """The status line, headers and body the server answers `request` with."""
    address = urlsplit(app.url)
    with socket.create_connection((address.hostname, address.port), timeout=REPLY) as sock:
        sock.sendall(request)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.decode().split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines)
    return status, headers, body


def test_a_search_address_over_16_kb_gets_a_json_414(app):
    query = "q=" + "word+" * 4000  # 20 KB

    status, headers, body = send(
        app, f"GET /api/v1/vault/search?{query} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    )

    assert status == "HTTP/1.1 414 URI Too Long"
    assert headers["content-type"] == "application/json"
    assert "longer than 16 KB" in json.loads(body)["detail"]


def test_a_page_address_over_16_kb_gets_a_414_in_words(app):
    status, headers, body = send(
        app, b"GET /vault/?q=" + b"x" * 20_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    )

    assert status == "HTTP/1.1 414 URI Too Long"
    assert headers["content-type"].startswith("text/plain")
    assert b"longer than 16 KB" in body


def test_a_header_over_16_kb_gets_a_json_431(app):
    status, headers, body = send(
        app,
        b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: " + b"x" * 20_000 + b"\r\n\r\n",
    )

    assert status == "HTTP/1.1 431 Request Header Fields Too Large"
    assert "header is longer than 16 KB" in json.loads(body)["detail"]


def test_a_head_that_cannot_be_parsed_gets_a_json_400(app):
    status, headers, body = send(
        app, b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nno colon here\r\n\r\n"
    )

    assert status == "HTTP/1.1 400 Bad Request"
    assert headers["content-type"] == "application/json"
    assert "cannot be read" in json.loads(body)["detail"]


@pytest.mark.parametrize(
    "content_type, body",
    [("multipart/form-data", b"--"), ("multipart/form-data; boundary=x", b"\r\n")],
)
def test_a_multipart_body_that_cannot_be_read_gets_a_json_answer_from_the_app(
    app, content_type, body
):
    token = token_for(app, *TEACHER)

    status, headers, answer = send(
        app,
        b"POST /api/v1/vault/documents HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        + f"Authorization: Bearer {token}\r\nContent-Type: {content_type}\r\n".encode()
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body,
    )

    assert status.split()[1] in {"400", "422"}, status
    assert headers["content-type"] == "application/json; charset=utf-8"
    assert json.loads(answer)["detail"]


def refusal_for_host(app, path: str, host: str) -> urllib.error.HTTPError:
    request = urllib.request.Request(app.url + path, headers={"Host": host})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=REPLY)
    return refused.value


def test_a_host_the_app_does_not_answer_to_gets_a_json_400_under_the_api_and_a_page_elsewhere(
    app,
):
    refused = refusal_for_host(app, "/api/v1/health", "evil.example")
    assert refused.code == 400
    assert refused.headers["Content-Type"] == "application/json"
    assert "ALLOWED_HOSTS" in json.load(refused)["detail"]

    refused = refusal_for_host(app, "/accounts/login/", "evil.example")
    assert refused.code == 400
    assert refused.headers["Content-Type"].startswith("text/html")
