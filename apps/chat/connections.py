"""The database connection of a chat thread that waits: an answer's agent while the model
writes, the thread the sockets share between two questions.

With PostgreSQL each process takes its connections from a pool (docs/deployment.md), and a
thread that waits gives its connection back: sixteen answers streaming at once would otherwise
hold sixteen. SQLite has no pool and needs none. Its connection holds no lock between queries
(autocommit, WAL), while opening one costs about a millisecond of CPU (the file, its pragmas,
Django's SQL functions), and an answer opened four or five of them, on the machine's cores that
a class asking at once shares (docs/benchmarks.md#on-half-the-cpu). So a thread keeps SQLite's
until it ends.
"""

from asgiref.sync import SyncToAsync
from django.db import close_old_connections, connection


def release() -> None:
    """Before a wait: PostgreSQL's connection back to its pool; SQLite's kept."""
    if connection.vendor != "sqlite":
        close_old_connections()


class SocketSyncToAsync(SyncToAsync):
    """Channels' database_sync_to_async for the sockets' shared thread: it releases (above)
    around each call instead of closing."""

    def thread_handler(self, loop, *args, **kwargs):
        release()
        try:
            return super().thread_handler(loop, *args, **kwargs)
        finally:
            release()


database_sync_to_async = SocketSyncToAsync
