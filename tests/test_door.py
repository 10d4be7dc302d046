"""The door (cognivault_site/door.py): a 429 with Retry-After is given again to the same caller and
route without the app, until Retry-After; anyone and anything else goes in, and everything goes
in while Redis is down (docs/classroom.md#a-fair-share-of-the-machine)."""

import json
from datetime import timedelta

import pytest
import redis
import time_machine
from asgiref.sync import sync_to_async
from channels.testing import HttpCommunicator

from apps.accounts.models import ApiToken
from cognivault_site.asgi import django_asgi_app
from cognivault_site.door import Door, door_key
from tests.helpers.documents import make_document
from tests.helpers.users import make_user

pytestmark = pytest.mark.asyncio

CHAT = "/api/v1/chat/sessions/7/messages"
ALICE = [(b"cookie", b"csrftoken=abc; sessionid=alices-session")]
BOB = [(b"cookie", b"sessionid=bobs-session")]
MESSAGE = "Too many questions: at most 20 per minute. Try again in 30 seconds."
MOMENT = "2026-03-02 10:00:00+00:00"


class CountingApp:
    """An app that answers every request with the same response, and counts the requests."""

    def __init__(self, status: int = 429, headers: list | None = None, body: bytes = b""):
        self.status, self.body, self.calls = status, body, 0
        self.headers = headers if headers is not None else [(b"retry-after", b"30")]

    async def __call__(self, scope, receive, send) -> None:
        self.calls += 1
        await send({"type": "http.response.start", "status": self.status, "headers": self.headers})
        await send({"type": "http.response.body", "body": self.body[:10], "more_body": True})
        await send({"type": "http.response.body", "body": self.body[10:]})


def refusing(**overrides) -> CountingApp:
    headers = [
        (b"content-type", b"application/json; charset=utf-8"),
        (b"retry-after", b"30"),
        (b"set-cookie", b"csrftoken=fresh; Path=/"),
    ]
    return CountingApp(429, headers, json.dumps({"detail": MESSAGE}).encode(), **overrides)


async def call(app, path: str = CHAT, headers: list = ALICE, method: str = "POST"):
    """The status, headers and body the app answers."""
    scope = {"type": "http", "method": method, "path": path, "headers": headers}
    sent = []

    async def receive() -> dict:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict) -> None:
        sent.append(message)

    await app(scope, receive, send)
    start, *bodies = sent
    return start["status"], dict(start["headers"]), b"".join(one["body"] for one in bodies)


@pytest.fixture
def door_redis(settings, redis_url):
    settings.REDIS_URL = redis_url
    store = redis.Redis.from_url(redis_url)
    for key in store.scan_iter("door:*"):
        store.delete(key)
    return store


@pytest.fixture
def moment():
    with time_machine.travel(MOMENT, tick=False) as traveller:
        yield traveller


async def test_a_refused_caller_is_refused_again_without_the_app(door_redis, moment):
    app = refusing()
    door = Door(app)
    first = await call(door)
    again = await call(door)
    assert app.calls == 1
    assert again[0] == first[0] == 429
    assert again[2] == first[2] == json.dumps({"detail": MESSAGE}).encode()
    assert again[1][b"retry-after"] == b"30"
    assert again[1][b"content-type"] == b"application/json; charset=utf-8"
    assert again[1][b"content-length"] == str(len(again[2])).encode()


async def test_a_caller_asking_again_waits_a_second_at_most_until_retry_after(
    door_redis, moment, monkeypatch, settings
):
    settings.SLOW_REFUSAL_SECONDS = 1.0
    waits = []

    async def wait(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr("cognivault_site.door.asyncio.sleep", wait)
    app = refusing()
    door = Door(app)
    await call(door)  # the app's own refusal is not slowed
    await call(door)
    moment.shift(timedelta(seconds=29.5))
    await call(door)
    assert waits == [1.0, pytest.approx(0.5)] and app.calls == 1


async def test_the_refusal_given_again_sets_no_cookie(door_redis, moment):
    door = Door(refusing())
    await call(door)
    _, headers, _ = await call(door)
    assert b"set-cookie" not in headers


async def test_the_wait_counts_down_in_the_header_and_the_message(door_redis, moment):
    door = Door(refusing())
    await call(door)
    moment.shift(timedelta(seconds=12))
    _, headers, body = await call(door)
    assert headers[b"retry-after"] == b"18"
    assert json.loads(body)["detail"].endswith("Try again in 18 seconds.")


async def test_after_retry_after_the_caller_goes_in_again(door_redis, moment):
    app = refusing()
    door = Door(app)
    await call(door)
    assert 0 < door_redis.ttl(door_key({"method": "POST", "path": CHAT, "headers": ALICE})) <= 30
    moment.shift(timedelta(seconds=30))
    await call(door)
    assert app.calls == 2


async def test_other_students_and_other_routes_go_in(door_redis, moment):
    app = refusing()
    door = Door(app)
    await call(door)
    await call(door, headers=BOB)
    await call(door, path="/api/v1/chat/sessions/8/messages")
    await call(door, method="GET")
    await call(door, headers=[*ALICE, (b"hx-request", b"true")])  # wants an alert, not JSON
    assert app.calls == 5


async def test_an_api_token_is_a_caller_of_its_own(door_redis, moment):
    app = refusing()
    door = Door(app)
    token = [(b"authorization", b"Bearer cv_alices-token")]
    await call(door, headers=token)
    await call(door, headers=token)
    await call(door, headers=[(b"authorization", b"Bearer cv_bobs-token")])
    assert app.calls == 2


@pytest.mark.parametrize(
    "headers",
    [
        [(b"cookie", b"sessionid=junk; sessionid=alices-session")],  # the last one is Django's
        [(b"cookie", b"sessionid=junk"), (b"cookie", b"csrftoken=abc; sessionid=alices-session")],
        [(b"cookie", b'sessionid="alices-session"')],
    ],
)
async def test_the_caller_is_the_session_django_reads(door_redis, moment, headers):
    app = refusing()
    door = Door(app)
    await call(door)  # ALICE: sessionid=alices-session
    assert (await call(door, headers=headers))[0] == 429
    assert app.calls == 1


async def test_a_leading_cookie_in_common_does_not_share_a_refusal(door_redis, moment):
    app = refusing()
    door = Door(app)
    await call(door, headers=[(b"cookie", b"sessionid=shared; sessionid=alices-session")])
    await call(door, headers=[(b"cookie", b"sessionid=shared; sessionid=bobs-session")])
    assert app.calls == 2


@pytest.mark.parametrize("scheme", [b"Bearer", b"bearer", b"BEARER", b"bEaReR"])
async def test_the_token_is_read_in_every_case_of_the_scheme(door_redis, moment, scheme):
    app = refusing()
    door = Door(app)
    await call(door, headers=[(b"authorization", b"Bearer cv_alices-token")])
    assert (await call(door, headers=[(b"authorization", scheme + b" cv_alices-token")]))[0] == 429
    assert app.calls == 1


async def test_a_header_the_api_does_not_read_as_a_token_is_no_caller(door_redis, moment):
    app = refusing()
    door = Door(app)
    for value in (b"Basic dXNlcjpwYXNz", b"Token cv_alices-token", b"Bearer"):
        await call(door, headers=[(b"authorization", value)])
        await call(door, headers=[(b"authorization", value)])
    assert app.calls == 6


async def test_a_request_without_session_or_token_always_goes_in(door_redis, moment):
    app = refusing()
    door = Door(app)
    for headers in (
        [],
        [(b"cookie", b"csrftoken=abc")],
        [(b"cookie", b"sessionid=")],
        [(b"authorization", b"")],
    ):
        await call(door, headers=headers)
        await call(door, headers=headers)
    assert app.calls == 8


@pytest.mark.parametrize(
    "status, headers",
    [(429, []), (429, [(b"retry-after", b"soon")]), (400, [(b"retry-after", b"30")]), (503, [])],
)
async def test_only_a_429_with_retry_after_is_remembered(door_redis, moment, status, headers):
    app = CountingApp(status, headers, b"{}")
    door = Door(app)
    await call(door)
    assert (await call(door))[0] == status
    assert app.calls == 2


async def test_with_redis_down_every_request_goes_in(settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    app = refusing()
    door = Door(app)
    assert (await call(door))[0] == 429
    assert (await call(door))[0] == 429
    assert app.calls == 2


class Entering:
    """Counts the requests that reach Django."""

    def __init__(self, app):
        self.app, self.calls = app, 0

    async def __call__(self, scope, receive, send):
        self.calls += 1
        await self.app(scope, receive, send)


# Committing (the views run in threads of their own), without serialized rollback: restoring the
# migrated rows before it collided with content types left by earlier tests in a whole-suite run
# (IntegrityError on django_content_type), and it needs none of them. Committing tests after it
# in the suite's order (those in tests/) take no serialized rollback either: none needs them back.
@pytest.mark.django_db(transaction=True)
async def test_a_rate_limited_reingest_is_refused_at_the_door_with_djangos_answer(
    door_redis, settings, moment
):
    settings.RATE_LIMIT_REINGEST = "0/h"  # every re-ingestion over the limit
    alice = await sync_to_async(make_user)("alice")
    document = await sync_to_async(make_document)(alice)
    _, raw = await sync_to_async(ApiToken.objects.issue)(alice, "laptop")
    django = Entering(django_asgi_app)
    door = Door(django)
    path = f"/api/v1/vault/documents/{document.pk}/reingest"
    headers = [(b"host", b"127.0.0.1:8000"), (b"authorization", f"Bearer {raw}".encode())]
    answers = []
    for _ in range(2):
        communicator = HttpCommunicator(door, "POST", path, headers=headers)
        communicator.scope |= {"client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000)}
        answers.append(await communicator.get_response(timeout=10))  # the door's second late
    assert django.calls == 1
    first, again = answers
    assert again["status"] == first["status"] == 429
    assert again["body"] == first["body"]
    assert "re-ingestions" in json.loads(again["body"])["detail"]
    first_headers, again_headers = ({n.lower(): v for n, v in one["headers"]} for one in answers)
    assert again_headers[b"retry-after"] == first_headers[b"retry-after"]
    assert again_headers[b"content-type"] == first_headers[b"content-type"]
