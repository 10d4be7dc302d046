"""A teacher drags a pile of real files into the Knowledge Base and watches them ingest."""

import pytest
from playwright.sync_api import expect

from apps.vault.tests import files
from tests.helpers.browser import log_in
from tests.helpers.running_app import TEACHER
from tests.helpers.slowness import scaled_ms

pytestmark = [pytest.mark.browser, pytest.mark.services]


def test_a_teacher_uploads_every_format_and_watches_the_timeline(browser, running_app, tmp_path):
    paths = [
        files.scanned_page_pdf(tmp_path / "zelle.pdf", text_pages=2),
        files.docx_file(tmp_path / "zellbiologie.docx"),
        files.pptx_file(tmp_path / "krebs.pptx"),
        files.xlsx_file(tmp_path / "budget.xlsx"),
        files.csv_file(tmp_path / "arten.csv"),
        files.markdown_file(tmp_path / "genetik.md"),
    ]
    page = log_in(browser, running_app, *TEACHER)
    page.goto("/vault/")
    page.get_by_label("Category").first.select_option(label="None")
    page.locator('input[type="file"][name="files"]').set_input_files([str(p) for p in paths])
    page.get_by_role("button", name="Upload and ingest").click()

    timeline = page.locator("#run-timeline")
    timeline.wait_for()
    assert "run-done" not in timeline.get_attribute("class")  # shown while it still works
    # ...and it reaches the end in the same page, by polling, without a reload.
    page.wait_for_selector("#run-timeline.run-done", timeout=scaled_ms(180))
    assert timeline.locator(".timeline .step").count() == 5
    assert timeline.locator(".step-done").count() == 5
    assert "6 of 6 files read" in timeline.locator('[data-step="extract"]').inner_text()
    assert "1 OCR page in" in timeline.locator('[data-step="extract"]').inner_text()
    assert "batches" in timeline.locator('[data-step="embed"]').inner_text()

    library = page.locator("#library")
    library.locator("td.status-done").nth(5).wait_for()
    for path in paths:
        row = library.locator("tr", has_text=path.name)
        assert row.locator("td.status-done").count() == 1, path.name
    pdf_row = library.locator("tr", has_text="zelle.pdf")
    assert "(1 OCR)" in pdf_row.inner_text()

    # The run survives closing the tab: a fresh page shows the same finished timeline.
    page.reload()
    assert "done" in page.locator("#run-timeline .run-status").inner_text()
    page.context.close()


def test_more_files_than_one_upload_takes_are_refused_in_the_browser(
    browser, running_app, tmp_path
):
    paths = []
    for number in range(101):
        path = tmp_path / f"note-{number}.txt"
        path.write_text(f"Note {number}: " + "a sentence of text to read. " * 5)
        paths.append(str(path))
    page = log_in(browser, running_app, *TEACHER)
    page.goto("/vault/")
    files_input = page.locator('input[type="file"][name="files"]')
    files_input.set_input_files(paths)
    sent = []
    page.on("request", lambda request: sent.append(request.url))
    page.get_by_role("button", name="Upload and ingest").click()
    page.wait_for_timeout(1_000)
    assert not [url for url in sent if "/vault/upload/" in url]
    assert files_input.evaluate("input => input.validationMessage") == "At most 100 files at once."
    files_input.set_input_files(paths[:2])
    assert files_input.evaluate("input => input.validationMessage") == ""
    page.context.close()


def test_a_new_category_can_be_picked_at_once_and_a_refused_name_stays_typed(browser, running_app):
    page = log_in(browser, running_app, *TEACHER)
    page.goto("/vault/")
    page.get_by_label("New category").fill("Astronomy")
    page.get_by_role("button", name="Add", exact=True).click()
    page.locator(".messages", has_text="Category Astronomy created.").wait_for()
    # Both forms that file things under a category offer it without a reload.
    for form in ("upload", "urls"):
        select = page.locator(f'form[action$="/vault/{form}/"] select[name="category"]')
        assert "Astronomy" in select.locator("option").all_inner_texts(), form

    page.get_by_label("New category").fill("Astronomy")
    page.get_by_role("button", name="Add", exact=True).click()
    page.locator(".messages", has_text="A category named Astronomy exists already.").wait_for()
    assert page.get_by_label("New category").input_value() == "Astronomy"

    page.on("dialog", lambda dialog: dialog.accept())
    page.locator("#category-list li", has_text="Astronomy").get_by_role("button").click()
    page.locator(".messages", has_text="Category Astronomy deleted").wait_for()
    select = page.locator('form[action$="/vault/upload/"] select[name="category"]')
    assert "Astronomy" not in select.locator("option").all_inner_texts()
    page.context.close()


def test_on_a_phone_a_refused_upload_says_why_where_the_teacher_is_looking(
    browser, running_app, tmp_path
):
    program = tmp_path / "setup.exe"
    program.write_bytes(b"MZ\x90\x00 a program, not a document")
    page = log_in(browser, running_app, *TEACHER, viewport={"width": 390, "height": 844})
    page.goto("/vault/")
    page.locator('input[type="file"][name="files"]').set_input_files(program)
    page.get_by_role("button", name="Upload and ingest").click()
    # The messages sit below both forms: on a narrow screen they are brought into view.
    message = page.locator("#vault-body .messages", has_text="setup.exe")
    message.wait_for()
    expect(message).to_be_in_viewport()
    page.context.close()
