"""A person in a real browser: logging in, moving around, and a classroom of separate people."""

import io
import re

import pytest
from PIL import Image
from playwright.sync_api import expect

from tests.helpers.browser import log_in, new_class
from tests.helpers.running_app import TEACHER

# The elements wider than the screen, to say what sticks out.
TOO_WIDE = """width => [...document.querySelectorAll("body *")]
  .filter(element => element.getBoundingClientRect().right > width + 0.5)
  .map(element => element.tagName + "." + element.className).slice(-5)"""

pytestmark = [pytest.mark.browser, pytest.mark.services]


def test_a_teacher_logs_in_and_clicks_through_the_four_sections(browser, running_app):
    page = log_in(browser, running_app, *TEACHER)
    for link, heading in [
        ("Chat", "Chat"),
        ("Knowledge Base", "Knowledge Base"),
        ("Study Hub", "Study Hub"),
        ("Dashboard", "Dashboard"),
    ]:
        page.get_by_role("navigation").get_by_role("link", name=link, exact=True).click()
        page.wait_for_url(re.compile(r"/(chat|vault|study|progress)/$"))
        assert page.get_by_role("heading", level=1).inner_text() == heading
        current = page.locator('nav a[aria-current="page"]')
        assert current.inner_text() == link
    # The last section is remembered.
    page.goto("/")
    assert page.url.endswith("/progress/")
    page.context.close()


def test_the_sidebar_runs_the_full_height_of_a_long_page(browser, running_app):
    page = log_in(browser, running_app, *TEACHER, viewport={"width": 1280, "height": 800})
    page.goto("/vault/")
    # A page three windows long, as a quiz's editor or a class of thirty is.
    page.evaluate(
        "document.getElementById('main').appendChild(document.createElement('div'))"
        ".style.height = '2400px'"
    )
    colour = page.locator(".sidebar").evaluate("nav => getComputedStyle(nav).backgroundColor")

    shot = Image.open(io.BytesIO(page.screenshot(full_page=True))).convert("RGB")

    assert shot.height > 2400
    sidebar = "rgb({}, {}, {})"
    assert [sidebar.format(*shot.getpixel((20, y))) for y in (400, 1600, shot.height - 5)] == [
        colour
    ] * 3
    page.context.close()


def test_every_page_has_an_icon_and_favicon_ico_answers(browser, running_app):
    page = log_in(browser, running_app, *TEACHER)
    for path in ["/accounts/login/", "/vault/"]:
        page.goto(path)
        icon = page.locator('link[rel="icon"]').get_attribute("href")
        assert page.request.get(icon).status == 200, path
    favicon = page.request.get("/favicon.ico")
    assert favicon.status == 200 and "svg" in favicon.headers["content-type"]
    page.context.close()


def test_three_students_created_by_the_teacher_cannot_reach_each_other(browser, running_app):
    teacher = log_in(browser, running_app, *TEACHER)
    class_page = new_class(teacher)
    teacher.get_by_label("Names").fill("Anna Berg\nBen Cohen\nCara Diaz")
    teacher.get_by_role("button", name="Create accounts").click()
    cards = teacher.locator("article.credential")
    expect(cards).to_have_count(3)
    credentials = [
        (card.locator(".username").inner_text(), card.locator(".password").inner_text())
        for card in cards.all()
    ]
    teacher.context.close()

    students = [
        log_in(browser, running_app, username, password) for username, password in credentials
    ]
    revoke_urls = []
    for page, (username, _) in zip(students, credentials, strict=True):
        assert f"Log out {username}" in page.locator("nav").inner_text()
        page.goto("/accounts/settings/")
        page.get_by_label("Name").fill(f"{username}'s script")
        page.get_by_role("button", name="Create token").click()
        page.locator(".new-token").wait_for()
        revoke_urls.append(page.locator("#token-list tbody form").get_attribute("action"))

    for index, page in enumerate(students):
        # Nobody sees another's tokens, and nobody can revoke them.
        page.goto("/accounts/settings/")
        text = page.locator("#token-list").inner_text()
        for other, (other_name, _) in enumerate(credentials):
            if other == index:
                assert f"{other_name}'s script" in text
                continue
            assert f"{other_name}'s script" not in text
            csrf = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
            response = page.request.post(revoke_urls[other], headers={"X-CSRFToken": csrf})
            assert response.status == 404
        # Students see the classes they are in, and manage none.
        page.goto("/classes/")
        assert page.get_by_role("heading", name="Your classes").is_visible()
        assert page.goto(class_page).status == 403

    for page in students:
        page.goto("/accounts/settings/")
        assert page.locator("#token-list tbody tr").count() == 1
        page.context.close()


def test_the_main_pages_fit_a_phone_width_screen(browser, running_app, certificate):  # noqa: F811
    page = log_in(browser, running_app, *TEACHER, viewport={"width": 390, "height": 844})
    page.goto("/chat/")
    page.get_by_role("button", name="New chat").first.click()
    page.wait_for_url("**/chat/*/")
    thread = page.url
    # Tables are the widest things on a page: give the class and the settings one each.
    class_page = new_class(page)
    page.get_by_label("Names").fill("Dana Phone-Width")
    page.get_by_role("button", name="Create accounts").click()
    page.locator("article.credential").wait_for()
    page.goto("/accounts/settings/")
    page.get_by_label("Name").fill("a phone-width script")
    page.get_by_role("button", name="Create token").click()
    page.locator(".new-token").wait_for()
    for path in [
        "/chat/",
        "/vault/",
        "/study/",
        "/study/workshops/",
        "/study/decks/",
        "/study/mindmaps/",
        "/study/class-sets/",
        "/progress/",
        "/classes/",
        class_page,
        "/accounts/settings/",
        "/privacy/",
        thread,
    ]:
        page.goto(path)
        # Nothing sticks out sideways: the page itself never scrolls horizontally.
        width = page.evaluate("document.scrollingElement.scrollWidth")
        assert width <= 390, (path, width, page.evaluate(TOO_WIDE, 390))
    page.context.close()


def log_out_in_another_tab(page):
    """The teacher, on the vault in `page`, logs out in a second tab of the same browser."""
    other = page.context.new_page()
    other.goto("/vault/")
    other.get_by_role("button", name=f"Log out {TEACHER[0]}").click()
    other.wait_for_url("**/accounts/login/**")
    return other


def test_a_click_after_logging_out_in_another_tab_opens_the_login_page(browser, running_app):
    page = log_in(browser, running_app, *TEACHER)
    page.goto("/vault/")
    log_out_in_another_tab(page)

    page.get_by_label("New category").fill("Chemistry")
    page.get_by_role("button", name="Add", exact=True).click()
    # The whole tab goes to the login page (and back to the vault after it), instead of the
    # login page appearing inside the vault.
    page.wait_for_url("**/accounts/login/?next=/vault/")
    assert page.locator("#page-alerts").count() == 1
    page.context.close()


def test_a_refused_htmx_request_says_so_instead_of_leaving_a_dead_button(browser, running_app):
    page = log_in(browser, running_app, *TEACHER)
    page.goto("/vault/")
    # Logging in again in another tab gives the session a new CSRF token; this tab's is stale.
    other = log_out_in_another_tab(page)
    other.get_by_label("Username").fill(TEACHER[0])
    other.get_by_label("Password").fill(TEACHER[1])
    other.get_by_role("button", name="Log in").click()
    other.wait_for_url(lambda url: "/accounts/login/" not in url)

    page.get_by_label("New category").fill("Chemistry")
    page.get_by_role("button", name="Add", exact=True).click()
    alert = page.locator("#page-alerts [role=alert]")
    alert.wait_for()
    assert "reload the page" in alert.inner_text()
    assert page.get_by_label("New category").input_value() == "Chemistry"
    page.context.close()
