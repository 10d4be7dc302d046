"""A reader a hostile file has taken over (a parser exploit runs the attacker's code in the
reading child): it tries what an attacker would, and says how far it got. The tests run it with
`run_isolated(path, "apps.vault.tests.hostile_reader:snoop", options=...)`."""

import os
import socket
from pathlib import Path


def snoop(path: Path, progress, secret: str, port: int) -> dict:
    """The uid, the environment, the root folder, what came of reading `secret` and of
    connecting to 127.0.0.1:`port` (the name of the error, or what was read), and the file."""
    seen = {"uid": os.getuid(), "environ": dict(os.environ), "root": sorted(os.listdir("/"))}
    try:
        seen["secret"] = Path(secret).read_text()
    except OSError as error:
        seen["secret"] = type(error).__name__
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            seen["connected"] = "connected"
    except OSError as error:
        seen["connected"] = type(error).__name__
    seen["file"] = path.read_text()
    return {"units": [], "seen": seen}
