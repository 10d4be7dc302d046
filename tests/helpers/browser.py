"""Debian's chromium as the browser tests launch it, and a person logged in in it."""

from tests.helpers.running_app import RunningApp

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def log_in(browser, app: RunningApp, username: str, password: str, **context_options):
    """A fresh browser context (its own cookies; `context_options` such as `timezone_id` go to
    Playwright's new_context) logged in as one person; returns its page."""
    context = browser.new_context(base_url=app.url, **context_options)
    page = context.new_page()
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    return page
