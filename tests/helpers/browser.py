"""Debian's chromium as the browser tests launch it, a page of the app in it, and a person
logged in in it."""

from tests.helpers.running_app import RunningApp
from tests.helpers.slowness import BROWSER_MS

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def open_page(browser, app: RunningApp, **context_options):
    """A page in a fresh browser context (its own cookies; `context_options` such as
    `timezone_id` go to Playwright's new_context), whose actions wait as long as the machine's
    slowness asks (tests/helpers/slowness.py)."""
    context = browser.new_context(base_url=app.url, **context_options)
    context.set_default_timeout(BROWSER_MS)
    return context.new_page()


def log_in(browser, app: RunningApp, username: str, password: str, **context_options):
    """A page of `open_page`'s logged in as one person."""
    page = open_page(browser, app, **context_options)
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    return page


def new_class(page, name: str = "7b") -> str:
    """The teacher's `page` makes a class and is left on its page; its address."""
    page.goto("/classes/")
    page.get_by_label("New class").fill(name)
    page.get_by_role("button", name="Create class").click()
    page.get_by_label("Names").wait_for()
    return page.url


# True when the focused element shows a ring of its own or on a part of it (the flashcard
# draws its ring on its faces): an outline or a box shadow, while it matches :focus-visible.
FOCUS_RING_SHOWN = """element => {
  const ring = part => {
    const style = getComputedStyle(part);
    return (style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0)
      || style.boxShadow !== "none";
  };
  return element.matches(":focus-visible")
    && (ring(element) || [...element.querySelectorAll("*")].some(ring));
}"""


def is_focused(locator) -> bool:
    return locator.evaluate("element => element === document.activeElement")


def tab_to(page, locator, *, backwards: bool = False, presses: int = 60) -> None:
    """Press Tab (Shift+Tab when `backwards`) until `locator` (found by its role and accessible
    name, as a screen reader names it) has the focus; it must show a visible focus ring."""
    key = "Shift+Tab" if backwards else "Tab"
    for _ in range(presses):
        page.keyboard.press(key)
        if is_focused(locator):
            assert locator.evaluate(FOCUS_RING_SHOWN), f"no visible focus ring on {locator}"
            return
    focused = page.evaluate("document.activeElement.outerHTML.slice(0, 200)")
    raise AssertionError(f"{presses} × {key} never reached {locator}; the focus is on {focused}")
