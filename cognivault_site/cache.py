"""Django's Redis cache, one connection pool and one client a process
(docs/benchmarks.md#where-the-cpu-goes).

Django keeps a cache object per request context, and each request of daphne runs in a context
and a thread of its own: Django's own backend made a new connection pool, so a new connection
to Redis, for every request that read the cache (the rate limits, the document pickers, the
study figures). Here every cache object of the process draws on the same pool, whose
connections stay open between requests. redis-py's pool is thread-safe and opens new
connections after a fork.

Django also made a new redis-py client for every cache call, and a client copies redis-py's
table of reply handlers as it is made: half the CPU of reading one key. A client takes a
connection from its pool for each command and gives it back, so one client serves every thread.
"""

import threading

from django.core.cache.backends.redis import RedisCache, RedisCacheClient

_clients: dict[str, object] = {}  # by the server's URL, each with its own pool
_lock = threading.Lock()


class SharedPoolClient(RedisCacheClient):
    def get_client(self, key=None, *, write=False):
        url = self._servers[self._get_connection_pool_index(write)]
        client = _clients.get(url)
        if client is None:
            with _lock:
                client = _clients.get(url)
                if client is None:
                    pool = self._pool_class.from_url(url, **self._pool_options)
                    client = _clients[url] = self._client(connection_pool=pool)
        return client


class SharedPoolRedisCache(RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = SharedPoolClient
