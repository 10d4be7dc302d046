"""Every cache object of a process draws on one Redis client and its connection pool
(cognivault_site/cache.py): Django keeps a cache object per thread and made a new client for
each call, which cost half the CPU of reading a key."""

import threading

from django.core.cache import caches

from tests.helpers.services import free_port


def client_of_another_thread():
    """The client that the cache of a fresh thread (a request's, in daphne) reads with."""
    found = []
    thread = threading.Thread(target=lambda: found.append(caches["default"]._cache.get_client()))
    thread.start()
    thread.join()
    return found[0]


def test_every_thread_and_every_call_read_and_write_through_the_same_client(settings):
    settings.CACHES = {  # a client connects on its first command, none is sent here
        "default": {
            "BACKEND": "cognivault_site.cache.SharedPoolRedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
        }
    }
    reading = caches["default"]._cache.get_client("key")

    assert caches["default"]._cache.get_client("key", write=True) is reading
    assert client_of_another_thread() is reading
