"""The web server: daphne, whose requests take a body only as large as their route and caller
may send, decided at the headers (bodies.py). What Twisted refuses before any request exists (a
request line or a header over 16 KB, a head it cannot parse) gets a status and a message too,
JSON under /api/, where Twisted would close the connection without a word or answer a bare 400.

Imported only by the process that serves (serve.py): importing daphne makes Twisted's event
loop, which a forked web process must not share with the process it was forked from.
"""

import ctypes
import signal
import socket
import sys

import daphne.cli
import daphne.server
from daphne.access import AccessLogGenerator
from daphne.cli import CommandLineInterface
from daphne.http_protocol import HTTPFactory
from twisted.internet import reactor, tcp
from twisted.web.http import HTTPChannel, _GenericHTTPChannelProtocol

from cognivault_site import warmup
from cognivault_site.bodies import BoundedRequest, answer
from cognivault_site.middleware import CARD_PATH


class AnsweringChannel(HTTPChannel):
    """Twisted's connection, which reads a request's line and headers up to 16 KB each (and in
    all): past that, or on a head it cannot parse, it answers before closing."""

    def lineLengthExceeded(self, line: bytes) -> None:
        if self._receivedHeaderSize == 0:  # nothing of this request's head read: its first line
            path = line.split(b" ", 2)[1] if line.count(b" ") else b""
            status = "414 URI Too Long"
            message = (
                f"The address is longer than {self.MAX_LENGTH // 1024} KB: "
                "send fewer or shorter query parameters."
            )
        else:
            path, status = getattr(self, "_path", b""), "431 Request Header Fields Too Large"
            message = f"A header is longer than {self.MAX_LENGTH // 1024} KB."
        self.transport.write(answer(status, message, path))
        self.loseConnection()

    def _respondToBadRequestAndDisconnect(self) -> None:
        message = (
            f"The request's line or headers cannot be read (at most {self.maxHeaders} headers "
            f"of {self.totalHeadersSize // 1024} KB in all)."
        )
        self.transport.write(answer("400 Bad Request", message, getattr(self, "_path", b"")))
        self.loseConnection()


class BoundedHTTPFactory(HTTPFactory):
    def protocol(self) -> _GenericHTTPChannelProtocol:
        return _GenericHTTPChannelProtocol(AnsweringChannel())

    def buildProtocol(self, addr):
        protocol = super().buildProtocol(addr)
        protocol.requestFactory = BoundedRequest
        return protocol


PR_SET_PDEATHSIG = 1


class CardlessAccessLog(AccessLogGenerator):
    """daphne's access log without the query of a login card's address: the key it carries
    logs a student in (docs/classroom.md#login-cards)."""

    def __call__(self, protocol, action, details):
        path = details.get("path") or ""
        if path.startswith(CARD_PATH) and "?" in path:
            details = {**details, "path": path.split("?", 1)[0] + "?[left out]"}
        super().__call__(protocol, action, details)


def share_ports() -> None:
    """Listen on ports the other web processes listen on too: the kernel spreads the incoming
    connections among them. Killed with the launcher, so none lingers on the shared port."""
    create = tcp.Port.createInternetSocket  # daphne's HTTP and HTTPS ports are both tcp.Port

    def create_shared(port: tcp.Port) -> socket.socket:
        sock = create(port)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        return sock

    tcp.Port.createInternetSocket = create_shared
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def run(*, shared_ports: bool) -> None:
    """daphne with this process's command line; on ports other web processes share when told."""
    if shared_ports:
        share_ports()
    # daphne's Server.run builds its HTTP factory from this name, and its command line its
    # access log, with no setting to change either.
    daphne.server.HTTPFactory = BoundedHTTPFactory
    daphne.cli.AccessLogGenerator = CardlessAccessLog
    # Once it listens, off the event loop: the first pages a class asks for find it ready.
    reactor.callWhenRunning(reactor.callInThread, warmup.warm_up)
    CommandLineInterface.entrypoint()
