"""The real thing for end-to-end tests: daphne and the Celery workers as separate processes on
loopback (tests/helpers/running_app.py), and Debian's Chromium driven by Playwright. The Redis
server they share is the root conftest.py's `redis_url`."""

import shutil
from collections.abc import Iterator
from contextlib import AbstractContextManager

import pytest

from tests.helpers.browser import CHROMIUM_ARGS
from tests.helpers.running_app import RunningApp, app_running
from tests.helpers.slowness import BROWSER_MS


@pytest.fixture(scope="session")
def start_app(redis_url, tmp_path_factory):
    """An app of one's own on a fresh DATA_DIR, for a module that needs its own data or model
    server: `with start_app(model_url=server.url, setup=SETUP, worker=False) as app: ...`."""

    def start(**options) -> AbstractContextManager[RunningApp]:
        return app_running(redis_url, tmp_path_factory.mktemp("data"), **options)

    return start


@pytest.fixture(scope="session")
def running_app(start_app) -> Iterator[RunningApp]:
    """daphne and a Celery worker as `make run` starts them, on a fresh DATA_DIR."""
    with start_app() as app:
        yield app


@pytest.fixture
def browser():
    """Per test, not per session: Playwright's sync API keeps an event loop running in this
    thread while it is open, which would break the asyncio tests that follow. An `expect` waits
    as long as an action (tests/helpers/browser.py's open_page)."""
    from playwright.sync_api import expect, sync_playwright

    executable = shutil.which("chromium")
    assert executable, "Debian's chromium is missing: run `make setup`"
    expect.set_options(timeout=BROWSER_MS)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def certificate(running_app):
    """The LAN certificate made for the running app (`manage.py tls_certificate`), for pages that
    show its fingerprint; removed again after the test."""
    running_app.manage("tls_certificate")
    yield
    shutil.rmtree(running_app.data_dir / "tls")
