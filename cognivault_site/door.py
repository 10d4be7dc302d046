"""Refusals given again at the door (docs/classroom.md#a-fair-share-of-the-machine): when the app
refuses a signed-in caller with a 429 and `Retry-After` (a rate limit, answers in progress, a
lockout), the refusal is remembered in Redis for the caller (a hash of their session cookie and
API token, read as Django and the API read them: cognivault_site/callers.py) and the route
(method and path, from htmx or not) until Retry-After. The caller's next requests to that route
get the same answer, with the seconds left, from here: in daphne's event loop, before any
session, database query or view runs, and a second late, so a script that ignores Retry-After
cannot keep the web process busy with refusals.

Requests without a session or token are not remembered: an address can be a whole classroom's,
and a lockout is per username and address (apps/accounts/lockout.py), which the route alone does
not say. If Redis does not answer, every request goes in, as the rate limits do without it.
"""

import asyncio
import hashlib
import json
import logging
import math
import time
import weakref

import redis.asyncio as aioredis
from django.conf import settings

from cognivault_site import callers

log = logging.getLogger(__name__)

PREFIX = "door:"
# A refusal is a message, not a page of data; anything longer is not kept.
MAX_BODY = 256 * 1024
# Redis is on loopback: one that does not answer in this long is treated as down...
REDIS_TIMEOUT = 0.5
# ...and not asked again for this long, so a hung Redis delays one request, not every one.
DOWN_SECONDS = 5
# The response's own headers, not the refusal's: a cookie set for that one response, the length
# and wait (set again), the date and server (added by daphne).
NOT_KEPT = {b"set-cookie", b"content-length", b"retry-after", b"date", b"server"}

_clients: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def door_key(scope: dict) -> str | None:
    """The caller and the route; htmx asks for an alert where a browser's form asks for a page.
    The caller is their session cookie and API token as the app reads them (callers.py), so a
    refusal is given again only to a request the app would take for the same caller's."""
    found = callers.credentials(scope["method"], scope["path"], scope.get("headers", []))
    if found is None:
        return None
    htmx = any(name == b"hx-request" for name, _ in scope.get("headers", ()))
    route = f"{scope['method']} {scope['path']}{' htmx' if htmx else ''}"
    caller = json.dumps([found.session, found.token, route]).encode()
    return PREFIX + hashlib.sha256(caller).hexdigest()


def retry_after(headers) -> int:
    for name, value in headers:
        if name.lower() == b"retry-after":
            return int(value) if value.isdigit() else 0
    return 0


class Door:
    """ASGI middleware around the Django app (cognivault_site/asgi.py)."""

    def __init__(self, app) -> None:
        self.app = app
        self.down_until = 0.0

    async def __call__(self, scope, receive, send) -> None:
        key = door_key(scope) if scope["type"] == "http" else None
        if key is None:
            return await self.app(scope, receive, send)
        refusal = await self.redis("GET", key)
        if refusal:
            refusal = json.loads(refusal)
            left = refusal["until"] - time.time()
            if left > 0:
                # The wait (settings.SLOW_REFUSAL_SECONDS) costs the event loop nothing.
                await asyncio.sleep(min(left, settings.SLOW_REFUSAL_SECONDS))
                return await replay(refusal, send)
        await self.app(scope, receive, self.watching(key, send))

    def watching(self, key: str, send):
        """`send`, remembering a 429 with Retry-After once its body is complete."""
        refusal = {}

        async def watch(message: dict) -> None:
            if message["type"] == "http.response.start":
                wait = retry_after(message.get("headers", ()))
                if message["status"] == 429 and wait > 0:
                    headers = [
                        [name.decode("latin-1"), value.decode("latin-1")]
                        for name, value in message.get("headers", ())
                        if name.lower() not in NOT_KEPT
                    ]
                    refusal.update(status=429, headers=headers, wait=wait, body="")
            elif message["type"] == "http.response.body" and refusal:
                refusal["body"] += message.get("body", b"").decode("latin-1")
                if len(refusal["body"]) > MAX_BODY:
                    refusal.clear()
                elif not message.get("more_body"):
                    refusal["until"] = time.time() + refusal["wait"]
                    await self.redis("SET", key, json.dumps(refusal), "EX", refusal["wait"])
            await send(message)

        return watch

    async def redis(self, *command):
        """The command's answer, or None when Redis is down (the request goes in)."""
        if time.monotonic() < self.down_until:
            return None
        try:
            return await client().execute_command(*command)
        except (aioredis.RedisError, OSError) as error:
            log.warning("the door does not remember refusals: %s", error)
            self.down_until = time.monotonic() + DOWN_SECONDS
            return None


def client() -> aioredis.Redis:
    """One client per event loop (its connections belong to it)."""
    loop = asyncio.get_running_loop()
    if loop not in _clients:
        _clients[loop] = aioredis.from_url(
            settings.REDIS_URL,
            socket_timeout=REDIS_TIMEOUT,
            socket_connect_timeout=REDIS_TIMEOUT,
        )
    return _clients[loop]


async def replay(refusal: dict, send) -> None:
    """The remembered refusal, its wait (Retry-After and the message's "in N seconds") counted
    down to what is left."""
    left = max(1, math.ceil(refusal["until"] - time.time()))
    body = refusal["body"].replace(f" in {refusal['wait']} seconds", f" in {left} seconds")
    body = body.encode("latin-1")
    headers = [
        (name.encode("latin-1"), value.encode("latin-1")) for name, value in refusal["headers"]
    ]
    headers += [(b"retry-after", str(left).encode()), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": refusal["status"], "headers": headers})
    await send({"type": "http.response.body", "body": body})
