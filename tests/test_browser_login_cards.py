"""The printed login cards: ten whole cards a page on A4 and on Letter, the first page too, and
every value on one line inside its card, on paper and on screen; the PDF Chromium prints holds
each student's username and password whole, and the address a student types beside the QR."""

import math

import pymupdf
import pytest

from tests.helpers.browser import log_in
from tests.helpers.login_cards import class_names, open_sheet
from tests.helpers.running_app import TEACHER

pytestmark = [pytest.mark.browser, pytest.mark.services]

PER_PAGE = 10  # two columns of five (static/css/login-cards.css)

# What is wrong with each card as drawn: an element past the card's edges, a value (name,
# address, username, password, each line of the fingerprint) on more than one line or wider
# than its box; and where the address sits beside the QR code.
CARD_FAULTS = """cards => cards.map(card => {
  const box = card.getBoundingClientRect();
  const faults = [];
  for (const element of card.querySelectorAll("*")) {
    const r = element.getBoundingClientRect();
    if (r.left < box.left - 0.5 || r.right > box.right + 0.5
        || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5) {
      faults.push(`outside: ${element.tagName} ${element.textContent.trim().slice(0, 30)}`);
    }
  }
  for (const value of card.querySelectorAll("h2, code")) {
    const range = document.createRange();
    range.selectNodeContents(value);
    const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
    if (lines.size > 1) faults.push(`on ${lines.size} lines: ${value.textContent}`);
    if (value.scrollWidth > value.clientWidth + 0.5) faults.push(`cut: ${value.textContent}`);
  }
  const qr = card.querySelector(".qr").getBoundingClientRect();
  const address = card.querySelector(".join-url").getBoundingClientRect();
  if (address.left < qr.right || address.top > qr.bottom) faults.push("address not beside the QR");
  return faults;
}).flat()"""


@pytest.fixture(scope="module")
def cards_app(start_app):
    """An app of its own with its LAN certificate (its fingerprint is on every card)."""
    with start_app(worker=False) as app:
        app.manage("tls_certificate")
        yield app


def cards_in(pdf: pymupdf.Document, usernames: list[str]) -> list[list[str]]:
    """The usernames each page of the PDF holds, each read whole from its text."""
    pages = []
    for page in pdf:
        lines = page.get_text().splitlines()
        pages.append([name for name in usernames if name in lines])
    return pages


@pytest.mark.parametrize("students", [5, 30, 31])
def test_a_class_prints_ten_whole_cards_a_page_on_a4_and_letter(browser, cards_app, students):
    page = log_in(browser, cards_app, *TEACHER, viewport={"width": 1280, "height": 900})
    open_sheet(page, class_names(students, f"c{students}-"))
    cards = page.locator("article.credential")
    assert cards.count() == students
    assert cards.evaluate_all(CARD_FAULTS) == []  # on screen, at 1280 px
    usernames = cards.locator(".username").all_inner_texts()
    passwords = cards.locator(".password").all_inner_texts()
    address = cards.first.locator(".join-url").inner_text()
    scheme, _, host = address.partition("://")
    assert scheme in ("http", "https") and host and "/" not in host  # short enough to type

    page.emulate_media(media="print")
    assert cards.evaluate_all(CARD_FAULTS) == []  # at the printed size
    for paper in ("A4", "Letter"):
        pdf = pymupdf.open(stream=page.pdf(format=paper), filetype="pdf")
        expected = [min(PER_PAGE, students - start) for start in range(0, students, PER_PAGE)]
        assert pdf.page_count == math.ceil(students / PER_PAGE), paper
        found = cards_in(pdf, usernames)
        assert [len(names) for names in found] == expected, (paper, found)
        text = "\n".join(page.get_text() for page in pdf).splitlines()
        for username, password in zip(usernames, passwords, strict=True):
            assert username in text and password in text, (paper, username)
        assert text.count(address) == students, paper
        for number, pdf_page in enumerate(pdf):  # every card on a page whole: its fingerprint too
            lines = pdf_page.get_text().splitlines()
            fingerprints = [line for line in lines if line.count(":") == 15]
            assert len(fingerprints) == 2 * expected[number], (paper, number)
    page.context.close()


# Each value's font size and width as drawn: 0 is a value nobody can read.
VALUE_SIZES = """values => values.map(value => [
  value.textContent,
  parseFloat(getComputedStyle(value).fontSize),
  value.getBoundingClientRect().width,
])"""


def test_a_phone_shows_each_cards_address_username_and_password_legibly(browser, cards_app):
    page = log_in(browser, cards_app, *TEACHER, viewport={"width": 390, "height": 844})
    open_sheet(page, class_names(2, "phone-"))

    sizes = page.locator("article.credential code").evaluate_all(VALUE_SIZES)

    assert len(sizes) >= 6  # address, username and password of each card, and more
    assert [text for text, size, width in sizes if size < 9 or width < 40] == []
    page.context.close()
