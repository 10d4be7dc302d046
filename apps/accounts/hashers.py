"""Password hashes below the pages' priority (docs/classroom.md#the-login-rush).

A password hash is by design the most expensive thing a request does. New hashes are Argon2id
at OWASP's minimum cost (19 MiB, two passes, one lane): tens of milliseconds of a core, where
PBKDF2 at Django's cost is half a second, so a class logging in at once by password no longer
takes both cores for seconds. Stored PBKDF2 hashes still verify, and Django replaces each with
an Argon2id one at its next login.

Either way the hash runs on a few threads of its own at a lower scheduling priority (a higher
nice value; on Linux the nice value belongs to a thread), so whatever else the process has to
do goes first and the hashes take the CPU that is left. The hashes themselves are Django's,
unchanged: the same algorithm names and stored forms.
"""

import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

from django.contrib.auth.hashers import Argon2PasswordHasher, PBKDF2PasswordHasher

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


def at_low_priority(function, *args):
    """`function(*args)` on a hashing thread, the caller waiting for it."""
    return hashing_pool().submit(function, *args).result()


class LowPriorityArgon2PasswordHasher(Argon2PasswordHasher):
    """Django's Argon2id at OWASP's minimum cost, on the low-priority hashing threads. A hash
    made at another cost still verifies (its cost is in its stored form) and is made again at
    this one on the next login."""

    time_cost = 2
    memory_cost = 19 * 1024  # KiB
    parallelism = 1

    def encode(self, password, salt):
        return at_low_priority(super().encode, password, salt)

    def verify(self, password, encoded):
        return at_low_priority(super().verify, password, encoded)


class LowPriorityPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    """Django's PBKDF2-SHA256, computed on the low-priority hashing threads. Verifying,
    hardening the runtime and making a new hash all go through `encode`."""

    def encode(self, password, salt, iterations=None):
        return at_low_priority(super().encode, password, salt, iterations)
