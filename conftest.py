"""Shared fixtures: the three people of every test (tess teaches, alice and bob study), tess's
class with alice and bob in it, a pinned clock, and a Redis server for the tests that need one.
What tests import (factories, the isolation check) is in tests/helpers/.

`TEST_DATABASE=postgres` runs the suite against a throwaway PostgreSQL cluster
(tests/postgres.py) instead of SQLite."""

import contextlib
import os
from collections.abc import Iterator

import dj_database_url
import pytest
import time_machine
from django.conf import settings as django_settings
from django.db import connections
from django.test import Client
from pytest_timeout import get_env_settings

from apps.accounts.models import User
from apps.classes.models import SchoolClass
from apps.llm.backends import ollama as ollama_backend
from tests import postgres
from tests.helpers.classes import make_class
from tests.helpers.clock import MIDDAY
from tests.helpers.services import redis_server
from tests.helpers.slowness import SLOWNESS, scaled
from tests.helpers.users import client_for, make_user


def pytest_configure(config) -> None:
    if os.environ.get("TEST_DATABASE", "sqlite") != "postgres":
        return
    if config.getoption("numprocesses", None) and not hasattr(config, "workerinput"):
        return  # xdist's controller runs no test: each of its workers starts its own cluster
    postgres.cluster = postgres.Cluster().start()
    # Django read its settings before this file, and its connection handler shares this dict:
    # the database is swapped in place (as pytest-django does for xdist) and the SQLite
    # connection object made meanwhile (never opened) is dropped. pytest-django then creates
    # its test database in this cluster as usual.
    default = django_settings.DATABASES["default"]
    default.clear()
    default.update(dj_database_url.parse(postgres.cluster.url("cognivault")))
    connections.configure_settings(django_settings.DATABASES)
    with contextlib.suppress(AttributeError):
        del connections["default"]


@pytest.fixture(scope="session", autouse=True)
def _postgres_test_database(request):
    """Answers written in worker threads leave those threads' connections open, and PostgreSQL
    drops no database in use: they are ended before pytest-django drops the test database."""
    if postgres.cluster is None:
        yield
        return
    request.getfixturevalue("django_db_setup")
    yield
    postgres.cluster.end_sessions(like="test_%")


def pytest_unconfigure(config) -> None:
    if postgres.cluster is not None:
        postgres.cluster.stop()
        postgres.cluster = None


def pytest_report_header(config) -> list[str]:
    return [
        f"database: {django_settings.DATABASES['default']['ENGINE'].rsplit('.', 1)[-1]}",
        f"slowness: {SLOWNESS:.1f} (TEST_SLOWNESS, or the load average per core at the start)",
    ]


def pytest_collection_modifyitems(config, items) -> None:
    """Each test's time limit (pytest-timeout's, or its own `timeout` marker) scaled by the
    machine's slowness, like every deadline in the tests (tests/helpers/slowness.py)."""
    default = get_env_settings(config).timeout
    for item in items:
        marker = item.get_closest_marker("timeout")
        seconds = marker.args[0] if marker else default
        if seconds and SLOWNESS != 1:
            item.add_marker(pytest.mark.timeout(scaled(seconds)), append=False)


@pytest.fixture(autouse=True)
def _isolated_environment(settings, tmp_path):
    """Each test gets its own DATA_DIR, an in-memory channel layer and cache, a fast password hash
    (the tests create many people; a slow hash only costs time here), and learns the embedding
    size and models of its own fake model server."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    ollama_backend.forget_servers()
    settings.DATA_DIR = tmp_path / "data"
    settings.DATA_DIR.mkdir()
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    # Rate-limit counters in memory, fresh for each test (its own location).
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": str(tmp_path),
        }
    }


@pytest.fixture
def midday():
    """Pins the clock at MIDDAY (frozen) for a test whose outcome depends on the hour or day."""
    with time_machine.travel(MIDDAY, tick=False) as traveller:
        yield traveller


@pytest.fixture
def tess(db) -> User:
    return make_user("tess", teacher=True)


@pytest.fixture
def alice(db) -> User:
    return make_user("alice")


@pytest.fixture
def bob(db) -> User:
    return make_user("bob")


@pytest.fixture
def tess_class(tess, alice, bob) -> SchoolClass:
    """Tess's class "7b": alice and bob are in it, so tess reaches them and their results on
    what she hands out (docs/classroom.md#who-reaches-what)."""
    return make_class(tess, [alice, bob])


@pytest.fixture
def tess_client(tess) -> Client:
    return client_for(tess)


@pytest.fixture
def alice_client(alice) -> Client:
    return client_for(alice)


@pytest.fixture
def bob_client(bob) -> Client:
    return client_for(bob)


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory) -> Iterator[str]:
    """A Redis server of the test session's own, started by the first test that asks."""
    with redis_server(tmp_path_factory.mktemp("redis")) as url:
        yield url
