"""What a request may send, decided by daphne at its headers as the Procfile starts it
(cognivault_site/bodies.py), seen from outside with raw sockets: a stranger's body over
MAX_BODY_MB is refused on any route before it is read; a signed-in caller's upload goes up to
MAX_UPLOAD_MB on the upload routes only; a few such uploads at once per address and in all, the
rest 429 and 503; and no temporary file outlives its request, refused or not."""

import json
import os
import socket
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.helpers.running_app import TEACHER
from tests.helpers.services import wait_until
from tests.helpers.slowness import REPLY
from tests.test_api_fuzzing import token_for

pytestmark = pytest.mark.services

MiB = 1024 * 1024
UPLOAD = "/api/v1/vault/documents"
# A signed-in session as the test client makes it, in the app's own database.
SESSION = """
from django.test import Client
from apps.accounts.models import User
client = Client()
client.force_login(User.objects.get(username="tess"))
print(client.cookies["sessionid"].value)
"""
CSRF = "c" * 32  # the cookie and the header agree: Django's CSRF check passes


class App:
    def __init__(self, running, temp: Path):
        self.running, self.temp = running, temp
        self.token = token_for(running, *TEACHER)
        self.session = running.manage("shell", "-c", SESSION).split()[-1]

    def connect(self, source: str = "127.0.0.1") -> socket.socket:
        address = urlsplit(self.running.url)
        return socket.create_connection(
            (address.hostname, address.port), timeout=REPLY, source_address=(source, 0)
        )


@pytest.fixture(scope="module")
def app(start_app, tmp_path_factory):
    """The running app with small limits and a temporary folder of its own."""
    temp = tmp_path_factory.mktemp("web-temp")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in {
            "MAX_BODY_MB": "1",
            "MAX_UPLOAD_MB": "3",
            "UPLOADS_PER_ADDRESS": "1",
            "UPLOADS_AT_ONCE": "2",
            "TMPDIR": str(temp),
        }.items():
            patch.setenv(name, value)
        with start_app(worker=False) as running:
            yield App(running, temp)


@pytest.fixture
def nothing_left(app):
    """After the test, once its requests have ended: no temporary file of the web server's, named
    or open."""
    yield
    wait_until(
        lambda: not list(app.temp.iterdir()) and not open_temporary_files(app.temp),
        timeout=15,
        what="an empty temporary folder",
    )


def open_temporary_files(temp: Path) -> list[str]:
    """What the web server holds open in its temporary folder (deleted files included)."""
    held = []
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        try:
            if "cognivault_site.serve" not in (fd_dir.parent / "cmdline").read_text():
                continue
            held += [os.readlink(fd) for fd in fd_dir.iterdir()]
        except OSError:
            continue
    return [target for target in held if target.startswith(str(temp))]


def multipart(size: int) -> tuple[str, bytes]:
    """A form with one text file of `size` bytes: its content type and body."""
    boundary = uuid.uuid4().hex
    part = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="notes.txt"\r\n'
        "Content-Type: text/plain\r\n\r\n"
    ).encode()
    text = (b"Photosynthesis turns light into sugar.\n" * (size // 39 + 1))[:size]
    return (
        f"multipart/form-data; boundary={boundary}",
        part + text + f"\r\n--{boundary}--\r\n".encode(),
    )


def head(path: str, *headers: str) -> bytes:
    return "\r\n".join([f"POST {path} HTTP/1.1", "Host: 127.0.0.1", *headers, "", ""]).encode()


def answer_of(sock: socket.socket) -> tuple[str, dict[str, str], bytes]:
    """The status line, headers and body of the answer, read until the server closes."""
    answer = b""
    while chunk := sock.recv(65536):
        answer += chunk
    while answer.startswith(b"HTTP/1.1 100 "):
        answer = answer.split(b"\r\n\r\n", 1)[1]
    top, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = top.decode().split("\r\n")
    return status, dict(line.lower().split(": ", 1) for line in lines), body


def send(sock: socket.socket, request: bytes, body_bytes: int = 0, *, chunked=False):
    """Send `request`, then `body_bytes` of filler (in chunks if `chunked`) until the server
    answers and closes; the answer."""
    sock.sendall(request)
    piece = b"x" * 65536
    try:
        for _ in range(body_bytes // len(piece)):
            sock.sendall(b"10000\r\n" + piece + b"\r\n" if chunked else piece)
    except OSError:
        pass  # refused and closed before all of it was sent
    return answer_of(sock)


def detail(body: bytes) -> str:
    return json.loads(body)["detail"]


def test_a_strangers_body_over_the_small_limit_is_refused_on_any_route(app, nothing_left):
    for path in ("/a/random/path", "/api/v1/chat/sessions", UPLOAD):
        with app.connect() as sock:
            status, _, body = send(
                sock, head(path, f"Content-Length: {150 * MiB}"), 4 * MiB
            )  # of the 150 MB announced: the answer came before the rest
        assert status == "HTTP/1.1 413 Content Too Large"
        assert b"1 MB a request may send" in body


def test_a_stranger_with_a_made_up_or_overridden_session_is_refused(app, nothing_left):
    for cookie in ("sessionid=made-up", f"sessionid={app.session}; sessionid=made-up"):
        with app.connect() as sock:
            status, _, answer = send(
                sock, head(UPLOAD, f"Cookie: {cookie}", f"Content-Length: {2 * MiB}"), 2 * MiB
            )
        assert status == "HTTP/1.1 413 Content Too Large"
        assert "without signing in" in detail(answer)


def test_a_signed_in_upload_over_the_small_limit_is_stored(app, nothing_left):
    content_type, body = multipart(int(2.8 * MiB))  # a named temporary file in Django's hands
    callers = [
        f"Authorization: bearer {app.token}",  # ninja reads the scheme in any case
        f"Cookie: sessionid=made-up; csrftoken={CSRF}; sessionid={app.session}\r\n"
        f"X-CSRFToken: {CSRF}",  # the last session cookie is Django's
    ]
    for caller in callers:
        with app.connect() as sock:
            request = head(
                UPLOAD,
                caller,
                f"Content-Type: {content_type}",
                f"Content-Length: {len(body)}",
                "Connection: close",
            )
            status, _, answer = send(sock, request + body)
        assert status.split()[1] in {"200", "201"}, (status, answer)
        assert json.loads(answer)["filename"] == "notes.txt"


def test_an_upload_past_the_upload_limit_is_refused_at_its_headers(app, nothing_left):
    with app.connect() as sock:
        status, _, body = send(
            sock,
            head(UPLOAD, f"Authorization: Bearer {app.token}", f"Content-Length: {2 * 1024 * MiB}"),
            4 * MiB,
        )
    assert status == "HTTP/1.1 413 Content Too Large"
    assert "3 MB upload limit" in detail(body)


def test_a_chunked_body_is_cut_off_once_it_passes_its_limit(app, nothing_left):
    chunked = "Transfer-Encoding: chunked"
    with app.connect() as sock:  # a stranger: refused at the headers, in the form's alert
        status, headers, body = send(
            sock, head("/vault/upload/", chunked, "HX-Request: true"), 3 * MiB, chunked=True
        )
    assert status == "HTTP/1.1 413 Content Too Large"
    assert headers["hx-retarget"] == "#page-alerts"
    assert b'role="alert">This request is larger than the 1 MB' in body

    with app.connect() as sock:  # on a route that takes no file: past 1 MB
        status, _, body = send(
            sock,
            head("/api/v1/chat/sessions", chunked, f"Authorization: Bearer {app.token}"),
            3 * MiB,
            chunked=True,
        )
    assert status == "HTTP/1.1 413 Content Too Large"
    assert "1 MB a request may send" in detail(body)

    with app.connect() as sock:  # an upload: past 3 MB and the form's margin
        status, _, body = send(
            sock, head(UPLOAD, chunked, f"Authorization: Bearer {app.token}"), 8 * MiB, chunked=True
        )
    assert status == "HTTP/1.1 413 Content Too Large"
    assert "3 MB upload limit" in detail(body)


def start_upload(app, source: str) -> socket.socket:
    """A signed-in upload from `source` that sends its headers and waits: its `100 Continue`
    comes once the server has taken it."""
    sock = app.connect(source)
    sock.sendall(
        head(
            UPLOAD,
            f"Authorization: Bearer {app.token}",
            f"Content-Length: {2 * MiB}",
            "Content-Type: multipart/form-data; boundary=x",
            "Expect: 100-continue",
        )
    )
    return sock


def taken(sock: socket.socket) -> bool:
    """Whether the server took the upload (`100 Continue`); False when it refused it."""
    first = sock.recv(65536)
    return first.startswith(b"HTTP/1.1 100 Continue")


def test_slow_uploads_past_one_per_address_get_429_and_past_two_in_all_503(app, nothing_left):
    first = start_upload(app, "127.0.0.1")
    assert taken(first)
    first.sendall(b"x" * 65536)  # and slowly, the rest never

    with start_upload(app, "127.0.0.1") as same_address:
        status, headers, body = answer_of(same_address)
    assert status == "HTTP/1.1 429 Too Many Requests"
    assert headers["retry-after"] == "10"
    assert "uploads from this address as may be on their way at once (1)" in detail(body)

    second = start_upload(app, "127.0.0.2")
    assert taken(second)
    with start_upload(app, "127.0.0.3") as third:
        status, headers, body = answer_of(third)
    assert status == "HTTP/1.1 503 Service Unavailable"
    assert headers["retry-after"] == "10"
    assert "as many uploads at once as it may (2)" in detail(body)

    first.close()  # its request ends: its place is free again
    second.close()

    def another_is_taken() -> bool:
        with start_upload(app, "127.0.0.1") as sock:
            return taken(sock)

    wait_until(another_is_taken, timeout=15, what="a free place for an upload")


def test_an_upload_abandoned_halfway_leaves_no_file(app, nothing_left):
    content_type, body = multipart(int(2.8 * MiB))
    with app.connect() as sock:
        sock.sendall(
            head(
                UPLOAD,
                f"Authorization: Bearer {app.token}",
                f"Content-Type: {content_type}",
                f"Content-Length: {len(body)}",
            )
            + body[: 2 * MiB]
        )
        # The server is writing it to its temporary file.
        wait_until(lambda: open_temporary_files(app.temp), timeout=15, what="a temporary file")
