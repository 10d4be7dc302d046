"""A live record of the outbound connections this app's processes open.

A hook on `socket.socket.connect`/`connect_ex`/`sendto` notes every destination that is not
loopback before the real call runs, in an append-only JSON-lines file under DATA_DIR that
the web and worker processes share. Anything that is neither the configured Ollama host,
the LAN, nor a URL import the user asked for is flagged as external.
"""

import contextlib
import contextvars
import ipaddress
import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

# Keep the file small: the page shows the recent past, the flag count is what matters.
MAX_BYTES = 512 * 1024

# The LAN a classroom uses. ipaddress's is_private is broader (it includes documentation and
# benchmark ranges), which would hide a connection to a public-looking test address.
LAN_NETWORKS = [
    ipaddress.ip_network(network)
    for network in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16")
] + [ipaddress.ip_network(network) for network in ("fc00::/7", "fe80::/10")]

# The URL import under way in this context, and the id of the person who asked for it.
_requested: contextvars.ContextVar[tuple[str, int | None] | None] = contextvars.ContextVar(
    "egress_requested", default=None
)
_recording = threading.local()
_lock = threading.Lock()
_state: dict = {"path": None, "allowed": set(), "role": "app"}


@dataclass(frozen=True)
class Connection:
    at: float
    pid: int
    role: str
    host: str
    port: int
    kind: str  # "ollama" | "lan" | "url-import" | "external"
    detail: str = ""
    user_id: int | None = None  # who asked for it (URL imports); None: the app itself

    @property
    def when(self) -> datetime:
        return datetime.fromtimestamp(self.at, tz=UTC)

    @property
    def flagged(self) -> bool:
        return self.kind == "external"


def install(
    path: Callable[[], Path], *, allowed: set[tuple[str, int]] = frozenset(), role: str = "app"
) -> None:
    """Start recording to `path()`; `allowed` are (host, port) pairs such as Ollama's."""
    _state.update(path=path, allowed=set(allowed), role=role)
    if getattr(socket.socket.connect, "_egress_hook", False):
        return
    for name in ("connect", "connect_ex", "sendto"):
        setattr(socket.socket, name, _hooked(name, getattr(socket.socket, name)))


def _hooked(name: str, original: Callable) -> Callable:
    def hook(sock, *args):
        # sendto(data, address) / sendto(data, flags, address): the address is last.
        if name != "sendto" or len(args) > 1:
            _note(sock, args[-1] if args else None)
        return original(sock, *args)

    hook._egress_hook = True
    hook.__name__ = name
    return hook


@contextlib.contextmanager
def user_requested(url: str, user_id: int | None = None) -> Iterator[None]:
    """Connections opened inside this block belong to a URL import this user asked for."""
    token = _requested.set((url, user_id))
    try:
        yield
    finally:
        _requested.reset(token)


def classify(host: str, port: int, allowed: set[tuple[str, int]]) -> str | None:
    """None for loopback (not recorded), else the kind of destination."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return None
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if address is not None:
        mapped = getattr(address, "ipv4_mapped", None)
        address = mapped or address
        if address.is_loopback or address.is_unspecified:
            return None
    if (host, port) in allowed:
        return "ollama"
    if _requested.get() is not None:
        return "url-import"
    if address is not None and any(address in network for network in LAN_NETWORKS):
        return "lan"
    return "external"


def _note(sock: socket.socket, address: object) -> None:
    if _state["path"] is None or getattr(_recording, "busy", False):
        return
    if sock.family not in (socket.AF_INET, socket.AF_INET6):
        return
    if not isinstance(address, tuple) or len(address) < 2:
        return
    host, port = str(address[0]), int(address[1])
    kind = classify(host, port, _state["allowed"])
    if kind is None:
        return
    url, user_id = _requested.get() or ("", None)
    entry = Connection(
        at=time.time(),
        pid=os.getpid(),
        role=_state["role"],
        host=host,
        port=port,
        kind=kind,
        detail=url,
        user_id=user_id,
    )
    _recording.busy = True
    try:
        _append(_state["path"](), entry)
    except OSError:
        pass  # the record is best effort; the connection itself must not fail because of it
    finally:
        _recording.busy = False


def _append(path: Path, entry: Connection) -> None:
    line = (json.dumps(asdict(entry)) + "\n").encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    with _lock:
        if path.exists() and path.stat().st_size > MAX_BYTES:
            kept = path.read_bytes()[-MAX_BYTES // 2 :].split(b"\n", 1)[-1]
            path.write_bytes(kept)
        # O_APPEND keeps lines from web and worker processes whole.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)


def read(path: Path) -> list[Connection]:
    """The recorded connections, oldest first; unreadable lines are skipped."""
    try:
        lines = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        try:
            found.append(Connection(**json.loads(line)))
        except (ValueError, TypeError):
            continue
    return found
