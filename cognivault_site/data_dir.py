"""DATA_DIR holds what no other account on the server may read: the database (sessions, card
keys, chats), the uploads, the index, the secret key, the TLS key. Every process makes what it
creates private (umask 077) as it starts, and makes private what an older version left readable
(docs/deployment.md#the-data-folder)."""

import os
import stat
from pathlib import Path

# New files 0600 and folders 0700: only the account the app runs as reads them.
UMASK = 0o077


def keep_private(data_dir: Path) -> None:
    """Create `data_dir` if need be and take every other account's access to what is in it.
    Symbolic links are left as they are (their target may be shared on purpose), and so is what
    another account owns (it cannot be changed from here)."""
    os.umask(UMASK)
    data_dir.mkdir(parents=True, exist_ok=True)
    for folder, _, files in os.walk(data_dir):
        for path in [folder, *(os.path.join(folder, name) for name in files)]:
            try:
                status = os.lstat(path)
                if (
                    status.st_mode & UMASK
                    and not stat.S_ISLNK(status.st_mode)
                    and status.st_uid == os.geteuid()
                ):
                    os.chmod(path, stat.S_IMODE(status.st_mode) & ~UMASK)
            except FileNotFoundError:  # another process removed it meanwhile
                continue
