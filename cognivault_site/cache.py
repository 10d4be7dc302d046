"""Django's Redis cache, one connection pool a process (docs/benchmarks.md#where-the-cpu-goes).

Django keeps a cache object per request context, and each request of daphne runs in a context
and a thread of its own: Django's own backend made a new connection pool, so a new connection
to Redis, for every request that read the cache (the rate limits, the document pickers, the
study figures). Here every cache object of the process draws on the same pool, whose
connections stay open between requests. redis-py's pool is thread-safe and opens new
connections after a fork.
"""

import threading

from django.core.cache.backends.redis import RedisCache, RedisCacheClient

_pools: dict[str, object] = {}
_lock = threading.Lock()


class SharedPoolClient(RedisCacheClient):
    def _get_connection_pool(self, write):
        url = self._servers[self._get_connection_pool_index(write)]
        pool = _pools.get(url)
        if pool is None:
            with _lock:
                pool = _pools.get(url)
                if pool is None:
                    pool = _pools[url] = self._pool_class.from_url(url, **self._pool_options)
        return pool


class SharedPoolRedisCache(RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = SharedPoolClient
