"""Password hashes below the pages' priority (docs/classroom.md#the-login-rush).

A password hash is by design the most expensive thing a request does: PBKDF2 at Django's cost
is half a second of a core. When a class logs in at once, fifteen of them took both cores for
seconds, and every page, login card and socket of the class waited behind them. Here the hash
runs on a few threads of its own at a lower scheduling priority (a higher nice value; on Linux
the nice value belongs to a thread), so whatever else the process has to do goes first and the
hashes take the CPU that is left. The hash itself is Django's, unchanged: the same algorithm
name, so every stored password verifies as before.
"""

import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

from django.contrib.auth.hashers import PBKDF2PasswordHasher

# Added to the process's nice value for the hashing threads (19 is the lowest priority).
NICENESS = 10

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def lower_this_threads_priority() -> None:
    """Raise the calling thread's nice value by NICENESS. Only Linux gives threads their own
    nice value; elsewhere the hashes run at the process's priority."""
    if sys.platform == "linux":
        thread = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, thread, os.getpriority(os.PRIO_PROCESS, thread) + NICENESS)


def hashing_pool() -> ThreadPoolExecutor:
    """One pool per process, a thread per core: hashlib releases the GIL while it hashes."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(
                max_workers=os.cpu_count() or 1,
                thread_name_prefix="password-hash",
                initializer=lower_this_threads_priority,
            )
        return _pool


class LowPriorityPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    """Django's PBKDF2-SHA256, computed on the low-priority hashing threads. Verifying,
    hardening the runtime and making a new hash all go through `encode`."""

    def encode(self, password, salt, iterations=None):
        encode = super().encode
        return hashing_pool().submit(encode, password, salt, iterations).result()
