"""PostgreSQL's connections come from a pool in each process (docs/deployment.md#postgresql): a
web process serving a class's requests at once keeps at most DATABASE_POOL_SIZE of them open and
uses them again. Kept per request instead, they piled up until PostgreSQL refused more."""

import json
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest

from tests import postgres
from tests.helpers.running_app import TEACHER
from tests.helpers.slowness import REPLY

pytestmark = [
    pytest.mark.services,
    pytest.mark.skipif(postgres.cluster is None, reason="PostgreSQL only"),
]

POOL_SIZE = 4
AT_ONCE = 30  # a class
REQUESTS = 300


def test_a_web_process_serves_a_class_from_its_pool_of_connections(start_app, monkeypatch):
    monkeypatch.setenv("DATABASE_POOL_SIZE", str(POOL_SIZE))
    with start_app(worker=False) as app:
        login = dict(zip(("username", "password"), TEACHER, strict=True))
        request = urllib.request.Request(
            app.url + "/api/v1/auth/token",
            data=json.dumps(login).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=REPLY) as response:
            token = json.load(response)["token"]

        def chats(_) -> int:
            request = urllib.request.Request(
                app.url + "/api/v1/chat/sessions", headers={"Authorization": f"Bearer {token}"}
            )
            with urllib.request.urlopen(request, timeout=REPLY) as response:
                return response.status

        with ThreadPoolExecutor(AT_ONCE) as requests:
            statuses = list(requests.map(chats, range(REQUESTS)))
        with psycopg.connect(app.env["DATABASE_URL"]) as connection:
            [(opened,)] = connection.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchall()

    assert statuses == [200] * REQUESTS
    assert 1 <= opened <= POOL_SIZE
