"""The printed login cards: each card holds its own text, and the page fits the paper."""

import pytest

from tests.helpers.browser import log_in
from tests.helpers.running_app import TEACHER

pytestmark = [pytest.mark.browser, pytest.mark.services]

# Where a card's content sticks out of it: the elements whose right edge passes the card's.
OVERFLOWING = """cards => cards.flatMap(card => {
  const edge = card.getBoundingClientRect().right;
  const inside = [...card.querySelectorAll("*")].filter(
    element => element.getBoundingClientRect().right > edge + 0.5);
  const scrolls = card.scrollWidth > card.clientWidth;
  return inside.map(element => element.textContent.trim().slice(0, 40))
    .concat(scrolls ? ["the card scrolls"] : []);
})"""


def test_printed_login_cards_keep_address_and_fingerprint_inside_and_fit_the_page(
    browser,
    running_app,
    certificate,  # noqa: F811
):
    page = log_in(browser, running_app, *TEACHER, viewport={"width": 794, "height": 1123})
    page.goto("/accounts/classroom/")
    page.get_by_label("Names").fill("Maximiliane Printcard-Overflow\nBo Li\nCarla Wide")
    page.get_by_role("button", name="Create accounts").click()
    cards = page.locator("article.credential")
    cards.first.wait_for()
    assert ":" in cards.first.locator(".fingerprint").inner_text()

    page.emulate_media(media="print")
    assert cards.evaluate_all(OVERFLOWING) == []
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 794
    page.context.close()
