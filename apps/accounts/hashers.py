"""Password hashes below the pages' priority (docs/classroom.md#the-login-rush).

A password hash is by design the most expensive thing a request does: PBKDF2 at Django's cost
is a quarter to half a second of a core. When a class logs in at once, fifteen of them took both
cores for seconds, and every page, login card and socket of the class waited behind them. Here
the hash runs on a few threads of its own in Linux's idle scheduling class (SCHED_IDLE; on Linux
a thread has its own policy), so a core runs a hash only when nothing else of the machine wants
it, and whatever wakes up takes the core back at once. The hash itself is Django's, unchanged:
the same algorithm name, so every stored password verifies as before.
"""

import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

from django.contrib.auth.hashers import PBKDF2PasswordHasher

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def lower_this_threads_priority() -> None:
    """Put the calling thread in the idle scheduling class. A nice value (+10, then +19) was
    not enough: the hashes still took a share of a busy core, and a page's thread, woken by each
    of its queries' answers, waited for them (docs/benchmarks.md#a-school-on-one-server). Only
    Linux gives threads their own policy; elsewhere the hashes run at the process's priority."""
    if sys.platform == "linux":
        os.sched_setscheduler(threading.get_native_id(), os.SCHED_IDLE, os.sched_param(0))


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
