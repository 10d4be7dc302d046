"""The privacy audit: what is stored where, which models answer, and every outbound connection.

The page, the sidebar indicator and `GET /api/v1/vault/stats` all read from here.
"""

import ipaddress
import socket
import sys
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

from django.conf import settings
from django.db.models import Count

from apps.llm import egress, gateway
from apps.vault.models import Chunk, Document

# What each top-level entry under DATA_DIR holds. An app that stores something new adds a line
# here; anything not listed shows up on the page as "not described" so it cannot hide.
STORAGE = {
    "cognivault.sqlite3": "The database: accounts, chats, documents' text chunks and vectors, "
    "quizzes, workshops, decks, mindmaps and study progress",
    "cognivault.sqlite3-wal": "The database's write-ahead log (recent changes)",
    "cognivault.sqlite3-shm": "The database's shared-memory index for the write-ahead log",
    "secret_key": "This installation's key for signing sessions and tokens",
    "uploads": "The original files uploaded to the vault",
    "chat": "Files and pictures attached to chat questions, recordings waiting to be transcribed",
    "index": "Search indexes (FAISS, BM25): caches rebuilt from the database",
    "prompts": "Prompt templates customised for this installation (prompts/custom)",
    "models": "The speech model, assembled from installed packages on first use",
    "audit": "The record of outbound connections shown on this page",
    "redis": "Redis's saved job queue when `make run` started Redis itself",
    "staticfiles": "Stylesheets and scripts collected for serving (no personal data)",
    "tls": "The locally generated certificate for HTTPS on the LAN",
}


@dataclass(frozen=True)
class Stored:
    path: str  # relative to DATA_DIR
    holds: str
    bytes: int


def record_path() -> Path:
    return settings.DATA_DIR / "audit" / "connections.jsonl"


def ollama_addresses() -> set[tuple[str, int]]:
    """The configured Ollama host as (host, port) pairs, by name and by resolved address."""
    parts = urlsplit(
        settings.OLLAMA_HOST if "//" in settings.OLLAMA_HOST else f"//{settings.OLLAMA_HOST}"
    )
    host, port = (parts.hostname or "localhost"), (parts.port or 11434)
    found = {(host, port)}
    try:
        ipaddress.ip_address(host)
    except ValueError:
        try:
            for *_, address in socket.getaddrinfo(host, port, proto=socket.IPPROTO_TCP):
                found.add((str(address[0]), port))
        except OSError:
            pass  # not resolvable now: the name alone still identifies it
    return found


def start_recording() -> None:
    """Hook this process's sockets (web or worker) into the shared record."""
    role = "worker" if any("celery" in Path(arg).name for arg in sys.argv[:2]) else "web"
    egress.install(record_path, allowed=ollama_addresses(), role=role)


def visible_to(user, connection: egress.Connection) -> bool:
    """Teachers see every connection; a student sees the app's own and their own URL imports,
    never another person's (an imported URL may carry a secret)."""
    return user.is_teacher or connection.user_id == user.pk or not connection.detail


def seen_by(user, connection: egress.Connection) -> egress.Connection:
    """The address someone imported is theirs alone: a teacher sees that another person's
    import happened (when, to which host) without it (docs/classroom.md#who-reaches-what)."""
    if connection.user_id in (None, user.pk):
        return connection
    return replace(connection, detail="")


def recorded_for(user) -> list[egress.Connection]:
    """The recorded connections this person may see, oldest first, as they may see them."""
    return [seen_by(user, c) for c in egress.read(record_path()) if visible_to(user, c)]


def connections(user, limit: int = 100) -> list[egress.Connection]:
    """The most recent recorded connections this person may see, newest first."""
    return list(reversed(recorded_for(user)))[:limit]


_external_counts: dict[Path, tuple[tuple[int, int], int]] = {}


def external_count() -> int:
    """The sidebar's figure, on every page: the record (up to 512 KiB of JSON lines) is read
    again only when it has changed, not on each request."""
    path = record_path()
    try:
        stat = path.stat()
    except OSError:
        return 0
    version = (stat.st_size, stat.st_mtime_ns)
    cached = _external_counts.get(path)
    if cached is None or cached[0] != version:
        count = sum(1 for connection in egress.read(path) if connection.flagged)
        cached = _external_counts[path] = (version, count)
    return cached[1]


def storage_map() -> list[Stored]:
    """Every top-level path under DATA_DIR, what it holds and how many bytes."""
    root = settings.DATA_DIR
    entries = sorted(root.iterdir()) if root.is_dir() else []
    return [
        Stored(
            path=entry.name + ("/" if entry.is_dir() else ""),
            holds=STORAGE.get(entry.name, "not described"),
            bytes=_size(entry),
        )
        for entry in entries
    ]


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(item.stat().st_size for item in path.rglob("*") if item.is_file())


# What a student sees of each model: which one answers and whether it is ready, not where it
# runs or why it is not ready (a host, a path, a setting).
STUDENT_MODEL_FIELDS = ("backend", "model", "limits", "ready")


def models_seen_by(user) -> dict:
    """The model report (the Ollama probe's cached answer, not a new one per page)."""
    report = gateway.health(fresh=False)
    if user.is_teacher:
        return report
    return {
        part: {key: value for key, value in report[part].items() if key in STUDENT_MODEL_FIELDS}
        for part in ("chat", "embeddings", "speech")
    }


def vault_stats(user) -> dict:
    """The privacy figures for `GET /api/v1/vault/stats` and the privacy page: a student's own
    documents and storage; a teacher's also the data folder and the model settings."""
    documents = Document.objects.visible_to(user)
    chunks = Chunk.objects.filter(document__in=documents)
    recorded = recorded_for(user)
    by_kind = Counter(connection.kind for connection in recorded)
    stats = {
        "documents": documents.count(),
        "documents_by_status": {
            row["status"]: row["n"] for row in documents.values("status").annotate(n=Count("id"))
        },
        "chunks": chunks.count(),
        "embedding_models": {
            row["embedding_model"]: row["n"]
            for row in chunks.exclude(embedding_model="")
            .values("embedding_model")
            .annotate(n=Count("id"))
        },
        "data_dir": None,
        "storage": None,
        "storage_bytes": user.stored_bytes(),
        "models": models_seen_by(user),
        "connections": {
            "external": by_kind["external"],
            "by_kind": by_kind,
            "recent": recorded[::-1][:20],
        },
    }
    if user.is_teacher:
        storage = storage_map()
        stats["data_dir"] = str(settings.DATA_DIR)
        stats["storage"] = storage
        stats["storage_bytes"] = sum(entry.bytes for entry in storage)
    return stats
