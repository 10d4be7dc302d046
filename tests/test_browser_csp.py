"""Every page in a real browser under the Content-Security-Policy: nothing is refused, so no
inline script is left and htmx works without eval."""

import pytest

from tests.helpers.browser import log_in, open_page
from tests.helpers.running_app import TEACHER
from tests.test_content_policy import plain_paths

pytestmark = [pytest.mark.browser, pytest.mark.services]


def watch_console(page) -> list[str]:
    refusals: list[str] = []
    page.on(
        "console",
        lambda message: (
            refusals.append(f"{page.url}: {message.text}")
            if "Content Security Policy" in message.text or "unsafe-eval" in message.text
            else None
        ),
    )
    return refusals


def test_every_page_runs_with_no_csp_violation(browser, running_app):
    anonymous = open_page(browser, running_app)
    refusals = watch_console(anonymous)
    anonymous.goto("/accounts/login/")

    page = log_in(browser, running_app, *TEACHER)
    refusals += watch_console(page)
    visited = []
    for path in [*plain_paths(), "/admin/"]:
        probe = page.request.get(path, max_redirects=0)
        if probe.status != 200 or "text/html" not in probe.headers["content-type"]:
            continue  # a POST-only route, a redirect, JSON
        page.goto(path)
        page.wait_for_load_state("networkidle")
        visited.append(path)
    # Things that run scripts: the theme toggle, an htmx form, the chat socket.
    page.goto("/accounts/settings/")
    page.get_by_role("button", name="Light / dark").click()
    page.get_by_label("Name").fill("browser test")
    page.get_by_role("button", name="Create token").click()
    page.locator(".new-token").wait_for()
    page.goto("/vault/")
    page.locator("input[type=file][data-max-files]").set_input_files([])
    page.goto("/chat/")
    page.wait_for_load_state("networkidle")

    assert "/api/v1/docs" in visited and "/vault/" in visited and len(visited) > 15
    assert refusals == []


def test_a_confirm_before_deleting_still_asks(browser, running_app):
    page = log_in(browser, running_app, *TEACHER)
    page.goto("/classes/")
    page.evaluate(
        """() => {
          const form = document.createElement("form");
          form.dataset.confirm = "Really?";
          form.method = "post";
          form.action = "/accounts/logout/";
          form.innerHTML = '<button type="submit">Go</button>';
          document.querySelector("main").append(form);
        }"""
    )
    asked = []
    page.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    with page.expect_event("dialog"):
        page.get_by_role("button", name="Go").click()
    assert asked == ["Really?"]
    assert page.url.endswith("/classes/")  # dismissed: not submitted
