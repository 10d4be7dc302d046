"""The URL import's own HTTP client, guarded against server-side request forgery.

For every hop (redirects included): http or https only, no credentials, no backslashes, spaces
or control characters; the host is resolved once and every address it has must be global (any
encoding of a private, loopback, link-local, shared, reserved or multicast address is refused,
IPv4-mapped IPv6 too); the connection goes to exactly that checked address while TLS still
verifies the name. At most 10 MB and 10 seconds in all. Only a person's explicit import calls it.
"""

import contextlib
import http.client
import ipaddress
import re
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import quote, urljoin, urlsplit

from apps.vault.errors import FetchError

MAX_BYTES = 10 * 1024 * 1024
TIMEOUT_SECONDS = 10.0
MAX_REDIRECTS = 5
MAX_URL_LENGTH = 2000
PAGE_TYPES = ("text/html", "application/xhtml+xml")
REFUSED_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback")

Resolver = Callable[[str, int], list[str]]
Connector = Callable[[str, int, float], socket.socket]


@dataclass
class Fetched:
    url: str
    content: bytes
    content_type: str


@dataclass
class Target:
    scheme: str
    host: str
    port: int
    path: str


def system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [info[4][0] for info in infos]


def system_connector(address: str, port: int, timeout: float) -> socket.socket:
    return socket.create_connection((address, port), timeout=timeout)


NUMBER = re.compile(r"0[xX][0-9a-fA-F]*|[0-9]+")


def ipv4_literal(host: str) -> ipaddress.IPv4Address | None:
    """What inet_aton makes of a host like 2130706433, 0x7f000001, 0177.0.0.1 or 127.1.

    A host whose last label is a number is an address in some encoding (as browsers read it):
    it is decoded here, or refused when no valid address comes out.
    """
    labels = host.split(".")
    if not NUMBER.fullmatch(labels[-1]):
        return None
    if len(labels) > 4 or not all(NUMBER.fullmatch(label) for label in labels):
        raise FetchError("That host is not a valid address.")
    numbers = []
    for label in labels:
        if label[:2].lower() == "0x":
            numbers.append(int(label[2:] or "0", 16))
        elif len(label) > 1 and label.startswith("0"):
            if not re.fullmatch(r"[0-7]+", label):
                raise FetchError("That host is not a valid address.")
            numbers.append(int(label, 8))
        else:
            numbers.append(int(label))
    *head, last = numbers
    if any(number > 255 for number in head) or last >= 256 ** (4 - len(head)):
        raise FetchError("That host is not a valid address.")
    value = last
    for index, number in enumerate(head):
        value += number << (8 * (3 - index))
    return ipaddress.IPv4Address(value)


def check_address(address: str | ipaddress.IPv4Address | ipaddress.IPv6Address) -> None:
    ip = ipaddress.ip_address(address) if isinstance(address, str) else address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.scope_id:
            raise FetchError("Addresses with a zone are refused.")
        # IPv4 hidden inside IPv6 (mapped, 6to4, Teredo, NAT64) is checked as the IPv4 it is.
        embedded = [ip.ipv4_mapped, ip.sixtofour, *(ip.teredo or ())]
        if ip in ipaddress.ip_network("64:ff9b::/96"):
            embedded.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
        for inner in embedded:
            if inner is not None:
                check_address(inner)
    if (
        not ip.is_global
        or ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
    ):
        raise FetchError(
            f"Refused: {ip} is a private, local or reserved address. Only public web pages "
            "can be imported."
        )


def check_url(url: str) -> Target:
    if len(url) > MAX_URL_LENGTH:
        raise FetchError("That URL is too long.")
    if "\\" in url or any(ord(char) <= 0x20 or ord(char) == 0x7F for char in url):
        raise FetchError("That URL contains spaces, control characters or backslashes.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        raise FetchError("That URL is not valid.") from error
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise FetchError("Only http:// and https:// links can be imported.")
    if "@" in parts.netloc or parts.username is not None or parts.password is not None:
        raise FetchError("Links with a user name or password are refused.")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise FetchError("That URL has no host.")
    if "%" in host:
        raise FetchError("That host is not valid.")
    if not parts.netloc.startswith("["):
        try:
            host = host.encode("idna").decode("ascii").lower()
        except UnicodeError as error:
            raise FetchError("That host name is not valid.") from error
    path = quote(parts.path or "/", safe="/%:@!$&'()*+,;=-._~")
    if parts.query:
        path += "?" + quote(parts.query, safe="/%:@!$&'()*+,;=-._~?")
    return Target(scheme, host, port or (443 if scheme == "https" else 80), path)


def resolve_checked(target: Target, resolver: Resolver) -> str:
    """The one address to connect to, after every address of the host passed the check."""
    host = target.host
    if ":" in host:  # a bracketed IPv6 literal
        check_address(host)
        return host
    literal = ipv4_literal(host)
    if literal is not None:
        check_address(literal)
        return str(literal)
    if host in REFUSED_NAMES or host.endswith(".localhost"):
        raise FetchError("Refused: that name points at this machine.")
    try:
        addresses = resolver(host, target.port)
    except (OSError, UnicodeError) as error:
        raise FetchError(f"The host {host} could not be found.") from error
    if not addresses:
        raise FetchError(f"The host {host} could not be found.")
    for address in addresses:
        check_address(address)
    return addresses[0]


class _PinnedHTTP(http.client.HTTPConnection):
    def __init__(self, target: Target, address: str, connector: Connector, timeout: float):
        super().__init__(target.host, target.port, timeout=timeout)
        self.address, self.connector = address, connector

    def connect(self) -> None:
        self.sock = self.pinned = self.connector(self.address, self.port, self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, target: Target, address: str, connector: Connector, timeout: float):
        self.tls = ssl.create_default_context()
        super().__init__(target.host, target.port, timeout=timeout, context=self.tls)
        self.address, self.connector = address, connector

    def connect(self) -> None:
        raw = self.connector(self.address, self.port, self.timeout)
        self.sock = self.pinned = self.tls.wrap_socket(raw, server_hostname=self.host)


def fetch(
    url: str,
    *,
    resolver: Resolver = system_resolver,
    connector: Connector = system_connector,
    max_bytes: int = MAX_BYTES,
    timeout: float = TIMEOUT_SECONDS,
) -> Fetched:
    """GET a web page behind the guard; raises FetchError with a readable reason."""
    deadline = time.monotonic() + timeout
    for _ in range(MAX_REDIRECTS + 1):
        target = check_url(url)
        address = resolve_checked(target, resolver)
        status, location, content_type, body = _get(target, address, connector, deadline, max_bytes)
        if status in (301, 302, 303, 307, 308):
            if not location:
                raise FetchError("The page redirected without saying where to.")
            url = urljoin(url, location)
            continue
        if status != 200:
            raise FetchError(f"The page answered with HTTP status {status}.")
        if content_type.split(";")[0].strip().lower() not in PAGE_TYPES:
            raise FetchError(f"That link is not a web page ({content_type or 'no type'}).")
        return Fetched(url, body, content_type)
    raise FetchError("The page redirected too many times.")


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise FetchError(f"The page took longer than {TIMEOUT_SECONDS:g} seconds to load.")
    return left


def _get(
    target: Target, address: str, connector: Connector, deadline: float, max_bytes: int
) -> tuple[int, str, str, bytes]:
    kind = _PinnedHTTPS if target.scheme == "https" else _PinnedHTTP
    connection = kind(target, address, connector, _remaining(deadline))
    expired = threading.Event()

    def expire() -> None:
        # The total deadline: a server trickling one byte at a time cannot hold us longer.
        expired.set()
        sock = getattr(connection, "pinned", None)
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    timer = threading.Timer(_remaining(deadline), expire)
    timer.daemon = True
    timer.start()
    too_slow = f"The page took longer than {TIMEOUT_SECONDS:g} seconds to load."
    try:
        connection.request(
            "GET",
            target.path,
            headers={
                "User-Agent": "CogniVault URL import",
                "Accept": "text/html,application/xhtml+xml",
                "Accept-Encoding": "identity",
            },
        )
        response = connection.getresponse()
        location = response.getheader("Location", "")
        content_type = response.getheader("Content-Type", "")
        if response.status != 200:
            return response.status, location, content_type, b""
        declared = response.getheader("Content-Length")
        if declared and declared.isdigit() and int(declared) > max_bytes:
            raise FetchError(f"The page is larger than {max_bytes // (1024 * 1024)} MB.")
        body = bytearray()
        while block := response.read(65536):
            body += block
            if len(body) > max_bytes:
                raise FetchError(f"The page is larger than {max_bytes // (1024 * 1024)} MB.")
        if expired.is_set():
            raise FetchError(too_slow)
        return response.status, location, content_type, bytes(body)
    except FetchError:
        raise
    except TimeoutError as error:
        raise FetchError(too_slow) from error
    except ssl.SSLError as error:
        raise FetchError(f"The secure connection failed ({error.reason}).") from error
    except (OSError, http.client.HTTPException) as error:
        if expired.is_set():
            raise FetchError(too_slow) from error
        raise FetchError(f"The page could not be fetched ({type(error).__name__}).") from error
    finally:
        timer.cancel()
        connection.close()
