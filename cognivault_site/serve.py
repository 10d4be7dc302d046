"""The web server: daphne, whose requests take a body only as large as their route and caller
may send, decided at the headers (bodies.py). What Twisted refuses before any request exists (a
request line or a header over 16 KB, a head it cannot parse) gets a status and a message too,
JSON under /api/, where Twisted would close the connection without a word or answer a bare 400.

Run it with daphne's own arguments: `python -m cognivault_site.serve -b 0.0.0.0 -p 8000
cognivault_site.asgi:application`. With WEB_PROCESSES above 1 it starts that many such daphnes
on the same ports instead and waits for them (docs/deployment.md#more-than-one-web-process).
"""

import ctypes
import os
import signal
import socket
import subprocess
import sys

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cognivault_site.settings")
# Before the modules below: deciding a body looks up sessions and tokens (bodies.py).
django.setup(set_prefix=False)

import daphne.cli  # noqa: E402
import daphne.server  # noqa: E402
from daphne.access import AccessLogGenerator  # noqa: E402
from daphne.cli import CommandLineInterface  # noqa: E402
from daphne.http_protocol import HTTPFactory  # noqa: E402
from django.conf import settings  # noqa: E402
from twisted.internet import reactor, tcp  # noqa: E402
from twisted.web.http import HTTPChannel, _GenericHTTPChannelProtocol  # noqa: E402

from cognivault_site import warmup  # noqa: E402
from cognivault_site.bodies import BoundedRequest, answer  # noqa: E402
from cognivault_site.middleware import CARD_PATH  # noqa: E402


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


# The first argument of a daphne the launcher starts: it listens with SO_REUSEPORT.
SHARED_PORTS = "--shared-ports"
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


def launch(count: int) -> int:
    """`count` daphnes with this process's arguments on the same ports. SIGTERM and SIGINT are
    passed on; when one daphne ends by itself the others are stopped too, loudly: nothing
    restarts one alone (honcho restarts nothing), and the launcher's exit says it."""
    command = [sys.executable, "-m", "cognivault_site.serve", SHARED_PORTS, *sys.argv[1:]]
    children: dict[int, subprocess.Popen] = {}
    stopping = False

    def stop(signum=signal.SIGTERM, frame=None) -> None:
        nonlocal stopping
        stopping = True
        for child in children.values():
            child.send_signal(signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for _ in range(count):
        child = subprocess.Popen(command)
        children[child.pid] = child
    if stopping:  # a signal came while they started
        stop()
    pid, status = os.wait()
    code = os.waitstatus_to_exitcode(status)
    del children[pid]
    if not stopping:
        print(f"Web process {pid} ended ({code}): stopping the others.", file=sys.stderr)
        stop()
    codes = [code, *(child.wait() for child in children.values())]
    return 0 if stopping and not any(codes) else 1


def main() -> None:
    if sys.argv[1:2] == [SHARED_PORTS]:
        del sys.argv[1]
        share_ports()
    elif settings.WEB_PROCESSES > 1:
        sys.exit(launch(settings.WEB_PROCESSES))
    # daphne's Server.run builds its HTTP factory from this name, and its command line its
    # access log, with no setting to change either.
    daphne.server.HTTPFactory = BoundedHTTPFactory
    daphne.cli.AccessLogGenerator = CardlessAccessLog
    # Once it listens, off the event loop: the first pages a class asks for find it ready.
    reactor.callWhenRunning(reactor.callInThread, warmup.warm_up)
    CommandLineInterface.entrypoint()


if __name__ == "__main__":
    main()
