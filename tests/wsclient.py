"""A small websocket client for the end-to-end tests (RFC 6455 text frames over a plain socket),
logged in through the login form like a browser, so a test can hold sockets on several web
processes at once without a browser. Its deadlines are seconds on an idle machine, scaled by
the machine's slowness (tests/helpers/slowness.py)."""

import base64
import contextlib
import http.cookiejar
import os
import re
import socket
import struct
import time
import urllib.parse
import urllib.request

from tests.helpers.slowness import REPLY, scaled


def log_in(base_url: str, username: str, password: str) -> str:
    """The Cookie header of a fresh session logged in through the login form."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(base_url + "/accounts/login/", timeout=REPLY) as response:
        page = response.read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    form = {"username": username, "password": password, "csrfmiddlewaretoken": token}
    opener.open(base_url + "/accounts/login/", urllib.parse.urlencode(form).encode(), timeout=REPLY)
    cookies = {cookie.name: cookie.value for cookie in jar}
    assert "sessionid" in cookies, "the login failed"
    return "; ".join(f"{name}={value}" for name, value in cookies.items())


class Closed(Exception):
    pass


class WebSocket:
    def __init__(self, base_url: str, path: str, cookie: str) -> None:
        address = urllib.parse.urlsplit(base_url)
        self.sock = socket.create_connection((address.hostname, address.port), timeout=REPLY)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET {path} HTTP/1.1\r\nHost: {address.netloc}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: {base_url}\r\nCookie: {cookie}\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise Closed("closed during the handshake")
            head += chunk
        if not head.startswith(b"HTTP/1.1 101"):
            raise Closed(head.decode(errors="replace").splitlines()[0])

    def send_json(self, text: str) -> None:
        self._send(0x1, text.encode())

    def _send(self, opcode: int, payload: bytes) -> None:
        mask = os.urandom(4)
        length = len(payload)
        if length < 126:
            header = struct.pack("!BB", 0x80 | opcode, 0x80 | length)
        elif length < 65536:
            header = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, length)
        else:
            header = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, length)
        masked = bytes(byte ^ mask[i % 4] for i, byte in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def _read(self, size: int) -> bytes:
        data = b""
        while len(data) < size:
            chunk = self.sock.recv(size - len(data))
            if not chunk:
                raise Closed("connection closed")
            data += chunk
        return data

    def receive(self, timeout: float = 30) -> str:
        """The next text frame (pings are answered on the way)."""
        return self._frame(time.monotonic() + scaled(timeout))

    def receive_until(self, pattern: str, timeout: float = 30) -> list[str]:
        """Frames up to and including the first one matching `pattern` (a regex)."""
        frames = []
        deadline = time.monotonic() + scaled(timeout)
        while True:
            frames.append(self._frame(deadline))
            if re.search(pattern, frames[-1]):
                return frames

    def _frame(self, deadline: float) -> str:
        self.sock.settimeout(max(deadline - time.monotonic(), 0.01))
        while True:
            first, second = self._read(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack("!H", self._read(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", self._read(8))[0]
            payload = self._read(length)
            opcode = first & 0x0F
            if opcode == 0x8:
                raise Closed("closed by the server")
            if opcode == 0x9:
                self._send(0xA, payload)
            elif opcode == 0x1:
                return payload.decode()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._send(0x8, struct.pack("!H", 1000))
        self.sock.close()
