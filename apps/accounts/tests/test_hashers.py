"""Password hashes run below the pages' priority and are Django's own, unchanged (the site's
choice of them: tests/test_password_hashes.py)."""

import os
import sys
import threading

import pytest
from django.contrib.auth.hashers import (
    Argon2PasswordHasher,
    PBKDF2PasswordHasher,
    check_password,
    make_password,
)

from apps.accounts import hashers
from apps.accounts.hashers import LowPriorityArgon2PasswordHasher, LowPriorityPBKDF2PasswordHasher

HASHER = "apps.accounts.hashers.LowPriorityPBKDF2PasswordHasher"


def this_threads_nice() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


def test_the_hash_is_djangos_so_every_stored_password_verifies_as_before(settings):
    settings.PASSWORD_HASHERS = [HASHER]
    ours, djangos = LowPriorityPBKDF2PasswordHasher(), PBKDF2PasswordHasher()
    assert ours.algorithm == djangos.algorithm == "pbkdf2_sha256"
    assert ours.encode("tulip-7", "saltsalt", 1000) == djangos.encode("tulip-7", "saltsalt", 1000)

    stored_before = djangos.encode("tulip-7", djangos.salt(), 1000)
    assert check_password("tulip-7", stored_before)
    assert not check_password("tulip-8", stored_before)
    made_now = make_password("tulip-7")
    assert made_now.startswith("pbkdf2_sha256$1000000$") and djangos.verify("tulip-7", made_now)


@pytest.mark.skipif(sys.platform != "linux", reason="only Linux gives a thread its own nice value")
def test_hashing_runs_on_threads_of_lower_priority_than_the_caller():
    caller = this_threads_nice()
    assert hashers.hashing_pool().submit(this_threads_nice).result() == min(
        caller + hashers.NICENESS, 19
    )
    assert this_threads_nice() == caller  # the request's own thread keeps its priority


def test_a_hash_is_computed_on_a_hashing_thread(monkeypatch):
    seen = []
    encode = PBKDF2PasswordHasher.encode

    def noting_thread(self, *args):
        seen.append(threading.current_thread().name)
        return encode(self, *args)

    monkeypatch.setattr(PBKDF2PasswordHasher, "encode", noting_thread)
    LowPriorityPBKDF2PasswordHasher().encode("tulip-7", "saltsalt", 1000)
    assert len(seen) == 1 and seen[0].startswith("password-hash")


def test_an_argon2_hash_is_made_and_verified_on_a_hashing_thread(monkeypatch):
    seen = []
    for method in ("encode", "verify"):
        original = getattr(Argon2PasswordHasher, method)

        def noting_thread(self, *args, original=original):
            seen.append(threading.current_thread().name)
            return original(self, *args)

        monkeypatch.setattr(Argon2PasswordHasher, method, noting_thread)
    ours = LowPriorityArgon2PasswordHasher()

    assert ours.verify("tulip-7", ours.encode("tulip-7", ours.salt()))
    assert len(seen) == 2 and all(name.startswith("password-hash") for name in seen)
