"""A student hammering the URL import in a real browser: past the rate the page says so."""

import pytest

from tests.helpers.browser import log_in

pytestmark = [pytest.mark.browser, pytest.mark.services]

STUDENT = ("rate.tester", "rate-tester-pw-2026")


def test_too_many_imports_are_refused_with_a_message_above_the_form(browser, running_app):
    running_app.manage(
        "shell",
        "-c",
        "from apps.accounts.models import User; "
        f"User.objects.create_user({STUDENT[0]!r}, password={STUDENT[1]!r})",
    )
    page = log_in(browser, running_app, *STUDENT)
    page.goto("/vault/")
    alert = page.locator("#page-alerts [role=alert]")
    address = page.get_by_label("Address of a public page")
    import_button = page.get_by_role("button", name="Import")

    # A private address is refused by the guard without a fetch, but still counts. The server's
    # clock runs: a minute's window may turn inside the loop, so two windows' worth of tries.
    for _ in range(2 * 10 + 1):  # RATE_LIMIT_URL_IMPORTS defaults to 10 a minute
        address.fill("http://10.0.0.1/secret")
        with page.expect_response("**/vault/urls/") as answer:
            import_button.click()
        if answer.value.status == 429:
            break

    assert answer.value.status == 429
    alert.wait_for()
    assert "Too many web page imports: at most 10 per minute." in alert.inner_text()
    assert page.url.endswith("/vault/")  # the page stays, with what was typed
    assert address.input_value() == "http://10.0.0.1/secret"
    page.context.close()


def test_a_refused_import_says_why_in_the_page(browser, running_app):
    running_app.manage(
        "shell",
        "-c",
        "from apps.accounts.models import User; "
        "User.objects.create_user('refused.tester', password='refused-tester-pw-2026')",
    )
    page = log_in(browser, running_app, "refused.tester", "refused-tester-pw-2026")
    page.goto("/vault/")
    address = page.get_by_label("Address of a public page")
    address.fill("http://10.0.0.1/secret")
    with page.expect_response("**/vault/urls/") as answer:
        page.get_by_role("button", name="Import").click()

    assert answer.value.status == 422
    error = page.locator("#vault-body li.error")
    error.wait_for()
    assert "10.0.0.1 is a private, local or reserved address" in error.inner_text()
    assert address.input_value() == "http://10.0.0.1/secret"
    page.context.close()
