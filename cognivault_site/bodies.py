"""How much of a body a request may send, decided by the web server at its headers
(docs/classroom.md#request-bodies): `MAX_BODY_MB` on any route; up to `MAX_UPLOAD_MB` on an
upload route (`settings.UPLOAD_ROUTES`), for someone signed in only, and for at most
`UPLOADS_PER_ADDRESS` such bodies from one address and `UPLOADS_AT_ONCE` in all at once (429 and
503 with Retry-After past them). A body sent in chunks is cut off once it passes its limit.

Plain daphne reads the whole body to a temporary file before the app sees the request, so no
view or middleware could refuse it in time. Whether the caller is signed in is read from the
database off the event loop while the body waits (the connection is not read meanwhile).
"""

import io
import json
import logging
from collections import Counter
from urllib.parse import unquote

from daphne.http_protocol import WebRequest
from django.conf import settings
from django.db import connections
from django.template.loader import render_to_string
from django.urls import Resolver404, resolve
from twisted.internet import reactor
from twisted.internet.threads import deferToThread

from cognivault_site import callers

log = logging.getLogger(__name__)

MiB = 1024 * 1024
# One upload of up to 100 files (apps/vault/uploads.py) is multipart: boundaries, each part's
# headers and file name, the CSRF field. A mebibyte covers them many times over.
MULTIPART_MARGIN = MiB
# After a refusal, what the client still sends is read and dropped for a moment (up to this
# much), so that it reads the answer instead of a reset connection; then the connection closes.
LINGER_SECONDS = 2
LINGER_BYTES = 16 * MiB
# A refused upload may try again this much later: one in progress has arrived by then, or will.
BUSY_SECONDS = 10


def body_limit() -> int:
    return settings.MAX_BODY_MB * MiB


def upload_limit() -> int:
    return settings.MAX_UPLOAD_MB * MiB + MULTIPART_MARGIN


def answer(status: str, message: str, path: bytes, *, htmx: bool = False, wait: int = 0) -> bytes:
    """A whole response that ends the connection: `{"detail": message}` for the API, an alert
    above the form for htmx (like the app's other refusals, static/js/page.js), else the message
    as text."""
    headers = {"Connection": "close"}
    if wait:
        headers["Retry-After"] = str(wait)
    if htmx:
        body = render_to_string("base.html#page-alert", {"alert": message}).encode()
        headers |= {"Content-Type": "text/html; charset=utf-8", "HX-Retarget": "#page-alerts"}
        headers["HX-Reswap"] = "innerHTML"
    elif path.startswith(b"/api/"):
        body, headers["Content-Type"] = json.dumps({"detail": message}).encode(), "application/json"
    else:
        body, headers["Content-Type"] = message.encode(), "text/plain; charset=utf-8"
    headers["Content-Length"] = str(len(body))
    head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    return f"HTTP/1.1 {status}\r\n{head}\r\n".encode() + body


def upload_route(method: bytes, path: bytes) -> bool:
    if method != b"POST":
        return False
    try:
        match = resolve(unquote(path.split(b"?", 1)[0].decode("latin-1")))
    except Resolver404:
        return False
    return match.route in settings.UPLOAD_ROUTES


def signed_in(found: callers.Credentials) -> bool:
    """callers.signed_in in a thread of the reactor's pool, whose database connections are
    closed after it as after a request."""
    try:
        return callers.signed_in(found)
    finally:
        connections.close_all()


class Uploads:
    """The large bodies this web process is taking, by address."""

    def __init__(self) -> None:
        self.taking: Counter[str] = Counter()

    def take(self, address: str) -> tuple[str, str] | None:
        """Count one more from `address`; or the status and message refusing it."""
        if self.taking[address] >= settings.UPLOADS_PER_ADDRESS:
            return "429 Too Many Requests", (
                f"As many uploads from this address as may be on their way at once "
                f"({settings.UPLOADS_PER_ADDRESS}) are: try again in {BUSY_SECONDS} seconds."
            )
        if self.taking.total() >= settings.UPLOADS_AT_ONCE:
            return "503 Service Unavailable", (
                f"The server is taking as many uploads at once as it may "
                f"({settings.UPLOADS_AT_ONCE}): try again in {BUSY_SECONDS} seconds."
            )
        self.taking[address] += 1
        return None

    def give_back(self, address: str) -> None:
        self.taking[address] -= 1
        if self.taking[address] <= 0:
            del self.taking[address]


uploads = Uploads()


class BoundedRequest(WebRequest):
    refused = False
    closing = False
    checking = False  # the caller's session or token is being looked up
    paused = False  # by us, while it is
    expects = None  # the `Expect` header, answered once the caller is known
    received = 0
    limit = 0
    target = b""  # the path of the request line, kept for the answer
    complete = None  # the request line of a body that arrived whole while it was checked

    def __init__(self, *args, **kwargs) -> None:
        # Twisted would parse a multipart body itself, in memory, and answer one it cannot read
        # with a bare 400 before the app sees it: Django reads it, and says what is wrong.
        super().__init__(*args, parsePOSTFormSubmission=False, **kwargs)

    def gotLength(self, length: int | None) -> None:
        self.target, self.limit = self.channel._path, body_limit()
        if length is not None and length <= self.limit:
            return super().gotLength(length)
        if not upload_route(self.channel._command, self.target):
            return self.too_large()
        found = callers.credentials("POST", "/", self.asgi_headers())
        if found is None:
            return self.not_signed_in()
        self.limit = upload_limit()
        if length is not None and length > self.limit:
            return self.too_large()
        # Nothing more is read (nor answered `100 Continue`) until the caller is known; what
        # came with the headers waits in memory.
        self.checking, self.paused, self.content = True, True, io.BytesIO()
        self.expects = self.requestHeaders.getRawHeaders(b"expect")
        self.requestHeaders.removeHeader(b"expect")
        self.transport.pauseProducing()
        checked = deferToThread(signed_in, found)
        checked.addCallbacks(self.checked, self.not_checked, callbackArgs=(length,))

    def asgi_headers(self) -> list[tuple[bytes, bytes]]:
        """The headers as daphne hands them to the app."""
        return [
            (name.lower(), value)
            for name, values in self.requestHeaders.getAllRawHeaders()
            if b"_" not in name
            for value in values
        ]

    def checked(self, known: bool, length: int | None) -> None:
        self.checking = False
        if self.channel is None:  # the client went away meanwhile
            return
        if not known:
            return self.not_signed_in()
        address = getattr(self.transport.getPeer(), "host", "")
        refusal = uploads.take(address)
        if refusal is not None:
            return self.refuse(*refusal, wait=BUSY_SECONDS)
        self.notifyFinish().addBoth(lambda _: uploads.give_back(address))
        early = self.content.getvalue()
        super().gotLength(length)  # a temporary file, gone with the request
        self.content.write(early)
        self.resume()
        if self.expects and self.expects[0].lower() == b"100-continue":
            self.channel._send100Continue()
        if self.complete:
            super().requestReceived(*self.complete)

    def not_checked(self, failure) -> None:
        self.checking = False
        log.warning("could not check who sends an upload: %s", failure.getErrorMessage())
        if self.channel is not None:
            message = "The server cannot check who you are right now: try again in a moment."
            self.refuse("503 Service Unavailable", message, wait=BUSY_SECONDS)

    def too_large(self) -> None:
        if self.limit == body_limit():
            message = (
                f"This request is larger than the {settings.MAX_BODY_MB} MB a request may send."
            )
        else:
            message = (
                f"This request is larger than the {settings.MAX_UPLOAD_MB} MB upload limit: "
                "send fewer or smaller files at once."
            )
        self.refuse("413 Content Too Large", message)

    def not_signed_in(self) -> None:
        message = (
            f"This request is larger than the {settings.MAX_BODY_MB} MB a request may send "
            "without signing in: sign in to upload files."
        )
        self.refuse("413 Content Too Large", message)

    def handleContentChunk(self, data: bytes) -> None:
        self.received += len(data)
        if self.refused:
            if self.received > LINGER_BYTES:
                self.close()
            return
        if self.received > self.limit and not self.checking:  # sent in chunks
            self.received = 0
            return self.too_large()
        super().handleContentChunk(data)

    def requestReceived(self, command: bytes, path: bytes, version: bytes) -> None:
        if self.checking:
            self.complete = (command, path, version)
        elif not self.refused:  # a refused body that arrives whole still never reaches the app
            super().requestReceived(command, path, version)

    def refuse(self, status: str, message: str, *, wait: int = 0) -> None:
        self.refused = True
        if self.content is not None:
            self.content.close()  # a temporary file goes with what it held
        self.content = io.BytesIO()  # stays empty: nothing more of the body is kept
        # The channel would answer `Expect: 100-continue` after this: the client must not send.
        self.requestHeaders.removeHeader(b"expect")
        self.channel.persistent = False
        htmx = bool(self.requestHeaders.getRawHeaders(b"hx-request"))
        self.transport.write(answer(status, message, self.target, htmx=htmx, wait=wait))
        self.resume()  # what follows is read and dropped: see LINGER_SECONDS
        reactor.callLater(LINGER_SECONDS, self.close)

    def resume(self) -> None:
        if self.paused:
            self.paused = False
            self.transport.resumeProducing()

    def close(self) -> None:
        if not self.closing:
            self.closing = True
            self.loseConnection()
