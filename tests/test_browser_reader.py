"""A student follows a chat answer's citation into the document: the [n] marker opens its
source, its link opens the reader at the cited page, the jobs worker draws the page and the
passage is marked on it and in its text, in view; and the reader from the keyboard alone on a
phone, jumping to another page."""

import json

import pytest
from playwright.sync_api import expect

from tests.helpers.browser import log_in, tab_to
from tests.helpers.running_app import TEACHER

pytestmark = [pytest.mark.browser, pytest.mark.services]

STUDENT = ("sam", "sam-studies-2026")

# Tess's class handout, a real 12-page PDF read as ingestion reads it, and Sam's chat whose
# answer cites a passage on its page 7.
SETUP = f"""
from pathlib import Path
from apps.accounts.models import User
from apps.chat.models import Thread
from apps.vault.reading.tests.documents import read_in
from apps.vault.tests import files
from django.conf import settings
tess = User.objects.get(username="{TEACHER[0]}")
sam = User.objects.create_user("{STUDENT[0]}", password="{STUDENT[1]}")
folder = Path(settings.DATA_DIR) / "made"
folder.mkdir()
words = ("Die Mitochondrien erzeugen in der Zellatmung ATP aus Glucose und Sauerstoff. "
         "Ribosomen bauen Proteine nach dem Bauplan der Boten-RNA. ")
handout = read_in(tess, files.text_pdf(folder / "zellbiologie.pdf", pages=12, words=words),
                  scope="class")
chunk = handout.chunks.filter(page=7).first()
thread = Thread.objects.create(owner=sam, title="Was macht ATP?", titled=True)
thread.messages.create(role="user", content="Was macht ATP?")
citation = {{"number": 1, "chunk_id": chunk.pk, "document_id": handout.pk,
            "filename": handout.filename, "page": 7, "section": "", "text": chunk.text}}
thread.messages.create(role="assistant", content="Die Mitochondrien [1].", citations=[citation])
"""
# The ids the setup made, read once the app runs.
IDS = """
import json
from apps.chat.models import Thread
from apps.vault.models import Document
print(json.dumps({"thread": Thread.objects.get().pk, "document": Document.objects.get().pk}))
"""


@pytest.fixture(scope="module")
def reader_app(start_app):
    """An app of its own with the jobs worker, which draws the pages; with the setup's ids."""
    with start_app(setup=SETUP, queues=("celery",)) as app:
        yield app, json.loads(app.manage("shell", "-c", IDS).strip().splitlines()[-1])


def test_a_chat_citation_opens_the_document_at_its_page_with_the_passage_marked(
    browser, reader_app
):
    app, ids = reader_app
    page = log_in(browser, app, *STUDENT)
    page.goto(f"/chat/{ids['thread']}/")

    source = page.locator("details.source").first
    expect(source).not_to_have_attribute("open", "")
    page.get_by_role("link", name="[1]").click()
    expect(source).to_have_attribute("open", "")
    page.get_by_role("link", name="Open zellbiologie.pdf at page 7").click()

    page.wait_for_url(f"**/vault/documents/{ids['document']}/?page=7&chunk=*")
    sheet = page.locator("#page-7 .reader-sheet")
    expect(sheet.locator("img")).to_be_visible()
    marks = sheet.locator("svg.reader-marks rect")
    expect(marks.first).to_be_in_viewport()
    assert marks.count() >= 3  # a rectangle for each line of the passage
    image = sheet.locator("img").evaluate("img => img.complete && img.naturalWidth")
    assert image > 1000  # drawn at 144 dpi
    text = page.locator("#page-7 details.reader-text")
    expect(text).to_have_attribute("open", "")
    expect(text.locator("mark").first).to_contain_text("Mitochondrien")
    # Pages away from the cited one are not drawn until they come into view.
    assert page.locator("#page-12 img").count() == 0
    page.context.close()


def test_the_reader_from_the_keyboard_on_a_phone(browser, reader_app):
    app, ids = reader_app
    page = log_in(browser, app, *STUDENT, viewport={"width": 390, "height": 844})
    page.goto(f"/vault/documents/{ids['document']}/")
    expect(page.locator("#page-1 img")).to_be_visible()

    number = page.get_by_role("spinbutton", name="Page")
    tab_to(page, number)
    page.keyboard.press("Control+A")
    page.keyboard.type("10")
    page.keyboard.press("Enter")

    expect(page.locator("#page-10 img")).to_be_in_viewport()
    assert page.url.endswith("?page=10")
    expect(page.locator("#page-10")).to_be_focused()
    tab_to(page, page.locator("#page-10 summary"))
    page.keyboard.press("Enter")
    expect(page.locator("#page-10 details.reader-text")).to_have_attribute("open", "")
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= 390, f"the reader is {wide} px wide on a 390 px phone"
    tab_to(page, page.get_by_role("link", name="Download the original"), backwards=True)
    page.context.close()
