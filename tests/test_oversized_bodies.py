"""A body over the upload limit is refused when its headers arrive, by daphne as the Procfile
starts it (cognivault_site/serve.py), before it is read to a temporary file: a 413 while the
client has sent a few megabytes of the two gigabytes it announced, and nothing left on disk."""

import hashlib
import json
import os
import socket
import urllib.request
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.helpers.running_app import TEACHER
from tests.helpers.slowness import REPLY

pytestmark = pytest.mark.services

MiB = 1024 * 1024


@pytest.fixture(scope="module")
def small_limit_app(start_app, tmp_path_factory):
    """The running app with a 1 MB upload limit and a temporary folder of its own."""
    temp = tmp_path_factory.mktemp("web-temp")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MAX_UPLOAD_MB", "1")
        patch.setenv("TMPDIR", str(temp))
        with start_app(worker=False) as app:
            yield app, temp


def send(app, head: str, body_bytes: int, *, chunked: bool = False) -> bytes:
    """Send the request line and headers, then `body_bytes` of body (in chunks if `chunked`);
    return what the server answered."""
    address = urlsplit(app.url)
    with socket.create_connection((address.hostname, address.port), timeout=REPLY) as sock:
        sock.sendall(head.encode() + b"\r\n")
        piece = b"x" * 65536
        for _ in range(body_bytes // len(piece)):
            sock.sendall(b"10000\r\n" + piece + b"\r\n" if chunked else piece)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
        return answer


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


def test_a_body_announced_over_the_limit_gets_a_413_before_it_is_sent(small_limit_app):
    app, temp = small_limit_app

    answer = send(
        app,
        "POST /api/v1/vault/documents HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Length: {2 * 1024 * MiB}\r\n"
        "Content-Type: multipart/form-data; boundary=x\r\n",
        4 * MiB,  # of the 2 GB announced: the answer came before the rest
    )

    status, _, body = answer.partition(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 413")
    assert "1 MB upload limit" in json.loads(body)["detail"]
    assert list(temp.iterdir()) == []
    assert open_temporary_files(temp) == []


def test_a_chunked_body_is_cut_off_once_it_passes_the_limit(small_limit_app):
    app, temp = small_limit_app

    answer = send(
        app,
        "POST /vault/upload/ HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n"
        "HX-Request: true\r\n",
        3 * MiB,
        chunked=True,
    )

    assert answer.startswith(b"HTTP/1.1 413")
    assert b"HX-Retarget: #page-alerts" in answer  # shown above the form, like other refusals
    assert b'role="alert">This request is larger than the 1 MB upload limit' in answer
    assert list(temp.iterdir()) == []
    assert open_temporary_files(temp) == []


def test_an_upload_under_the_limit_still_works(small_limit_app):
    app, _ = small_limit_app
    login = urllib.request.Request(
        app.url + "/api/v1/auth/token",
        data=json.dumps({"username": TEACHER[0], "password": TEACHER[1]}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(login, timeout=REPLY) as response:
        token = json.load(response)["token"]
    boundary = uuid.uuid4().hex
    text = b"Photosynthesis turns light into sugar.\n" * 20_000  # 780 KB: a temporary file
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="notes.txt"\r\n'
            "Content-Type: text/plain\r\n\r\n"
        ).encode()
        + text
        + f"\r\n--{boundary}--\r\n".encode()
    )
    upload = urllib.request.Request(
        app.url + "/api/v1/vault/documents",
        data=body,
        headers={
            "Content-Type": f"multipart/form-data; boundary={boundary}",
            "Authorization": f"Bearer {token}",
        },
    )

    with urllib.request.urlopen(upload, timeout=REPLY) as response:
        assert response.status == 201
        assert json.load(response)["sha256"] == hashlib.sha256(text).hexdigest()
