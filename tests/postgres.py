"""A throwaway PostgreSQL cluster for the suite (`TEST_DATABASE=postgres`, `make test-postgres`):
Debian's server, initialised in a temporary directory and listening on a free loopback port,
stopped and deleted at the end. The server refuses to run as root, so as root it runs as the
`postgres` user that Debian's package creates."""

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import psycopg

# The cluster's superuser: trusted on loopback only, in a cluster nobody else ever sees.
SUPERUSER = "cognivault"


def binaries() -> Path:
    """The newest Debian PostgreSQL's bin directory (initdb, pg_ctl are not on PATH)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    assert found, "PostgreSQL is missing: run `make setup` (Debian's postgresql package)"
    return found[-1].parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Cluster:
    def __init__(self) -> None:
        self.bin = binaries()
        self.root = Path(tempfile.mkdtemp(prefix="cognivault-postgres-"))
        self.port = free_port()
        # As root: run the server as `postgres`, which must own its directory.
        self.user = "postgres" if os.geteuid() == 0 else None
        if self.user:
            account = pwd.getpwnam(self.user)
            os.chown(self.root, account.pw_uid, account.pw_gid)
        self._databases = 0

    def run(self, *args: str) -> None:
        subprocess.run(args, check=True, capture_output=True, user=self.user, cwd=self.root)

    def start(self) -> "Cluster":
        data = self.root / "data"
        self.run(
            str(self.bin / "initdb"),
            "-D",
            str(data),
            "-U",
            SUPERUSER,
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C.UTF-8",
        )
        # Durability is not what the suite tests: no fsync makes creating databases quick.
        options = [
            f"-p {self.port}",
            "-c listen_addresses=127.0.0.1",
            f"-c unix_socket_directories={self.root}",
            "-c fsync=off",
            "-c synchronous_commit=off",
            "-c full_page_writes=off",
            "-c max_connections=300",
        ]
        self.run(
            str(self.bin / "pg_ctl"),
            "start",
            "--wait",
            "-D",
            str(data),
            "-l",
            str(self.root / "server.log"),
            "-o",
            " ".join(options),
        )
        return self

    def url(self, database: str) -> str:
        return f"postgres://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str | None = None) -> str:
        """A new empty database (named `name`, or the next `app_<n>`); returns its URL."""
        if name is None:
            self._databases += 1
            name = f"app_{self._databases}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def end_sessions(self, *, like: str) -> None:
        """Disconnects every session on the databases whose name is LIKE `like`."""
        with psycopg.connect(self.url("postgres"), autocommit=True) as connection:
            connection.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname LIKE %s AND pid <> pg_backend_pid()",
                [like],
            )

    def stop(self) -> None:
        try:
            self.run(str(self.bin / "pg_ctl"), "stop", "-D", str(self.root / "data"), "-m", "fast")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)


# The session's cluster, when the suite runs against PostgreSQL (set by the root conftest.py).
cluster: Cluster | None = None


def database_env() -> dict[str, str]:
    """Environment for a process of its own (an app, a worker) that needs a database of its
    own: a new PostgreSQL database when the suite runs against PostgreSQL, else nothing (it
    makes its SQLite file in its DATA_DIR)."""
    return {"DATABASE_URL": cluster.create_database()} if cluster else {}
