"""The reader, page and API alike: who may open a document, its pages drawn by the jobs worker
(never the web process) with the cited passage's rectangles, a scan's passage found from its OCR
words, and text documents shown as their text with the passage marked."""

import re

import pytest

from apps.vault.models import Chunk
from apps.vault.reading.models import Rendering
from apps.vault.reading.tests.documents import drawn, read_in
from apps.vault.tests import files
from tests.helpers.isolation import assert_only_owner_can_reach

pytestmark = pytest.mark.django_db

ORGANELLES = (
    "Ribosomes translate messenger RNA into proteins. The Golgi apparatus sorts and packs "
    "proteins for export. Lysosomes digest worn-out organelles. "
)


@pytest.fixture
def handout(alice, tmp_path):
    """Alice's own three-page PDF, read."""
    return read_in(alice, files.text_pdf(tmp_path / "handout.pdf", words=ORGANELLES))


def page_url(document, number, chunk=None) -> str:
    query = f"?chunk={chunk.pk}" if chunk else ""
    return f"/vault/documents/{document.pk}/pages/{number}/{query}"


def image_url(document, number) -> str:
    return f"/api/v1/vault/documents/{document.pk}/pages/{number}.png"


def test_bob_cannot_open_alices_document_its_pages_passages_or_file(handout, bob_client):
    chunk = handout.chunks.first()
    for url in [
        f"/vault/documents/{handout.pk}/",
        page_url(handout, 1),
        f"/vault/passages/{chunk.pk}/",
        image_url(handout, 1),
        f"/api/v1/vault/chunks/{chunk.pk}",
        f"/api/v1/vault/documents/{handout.pk}/file",
    ]:
        assert_only_owner_can_reach(url, bob_client, allowed_methods=["get"])
    assert not Rendering.objects.exists()


def test_the_reader_lists_every_page_and_opens_at_the_cited_one(handout, alice_client):
    chunk = handout.chunks.filter(page=2).first()

    page = alice_client.get(f"/vault/documents/{handout.pk}/?page=2&chunk={chunk.pk}").text

    assert page.count('class="reader-page"') == 3
    assert 'data-start="page-2"' in page
    assert f'hx-get="{page_url(handout, 2, chunk)}"' in page  # only the cited page marks it
    assert f'hx-get="{page_url(handout, 1)}"' in page
    assert "Download the original" in page


def test_a_long_document_lays_out_the_pages_around_the_one_opened_and_more_as_they_scroll_in(
    alice, alice_client, tmp_path
):
    book = read_in(alice, files.text_pdf(tmp_path / "book.pdf", pages=30))
    url = f"/vault/documents/{book.pk}/"

    opened = alice_client.get(f"{url}?page=15").text
    later = alice_client.get(f"{url}?from=26", HTTP_HX_REQUEST="true").text
    earlier = alice_client.get(f"{url}?to=12", HTTP_HX_REQUEST="true").text

    assert slots(opened) == list(range(13, 26))
    assert f'hx-get="{url}?to=12"' in opened and f'hx-get="{url}?from=26"' in opened
    assert slots(later) == list(range(26, 31)) and 'hx-get="' + url + "?" not in later
    assert slots(earlier) == list(range(3, 13)) and f'hx-get="{url}?to=2"' in earlier
    assert "?from=" not in earlier


def slots(html: str) -> list[int]:
    return [int(number) for number in re.findall(r'<section id="page-(\d+)"', html)]


def test_a_cited_page_is_drawn_by_the_worker_with_the_passage_marked(handout, alice_client):
    chunk = handout.chunks.filter(page=2).first()

    waiting = alice_client.get(page_url(handout, 2, chunk), HTTP_HX_REQUEST="true")
    assert "Drawing page 2…" in waiting.text and 'hx-trigger="load delay:1s"' in waiting.text
    rendering = drawn(handout, 2)
    shown = alice_client.get(page_url(handout, 2, chunk), HTTP_HX_REQUEST="true").text

    assert rendering.status == Rendering.Status.READY
    assert rendering.image_path.read_bytes().startswith(b"\x89PNG")
    assert f'src="{image_url(handout, 2)}?drawing={rendering.pk}"' in shown
    assert shown.count("<rect ") >= 3 and "data-scroll-into-view" in shown
    assert '<details class="reader-text" open>' in shown and "<mark>Page 2." in shown
    image = alice_client.get(image_url(handout, 2))
    assert image.status_code == 200 and image["Content-Type"] == "image/png"


def test_a_passages_rectangles_cover_its_words_on_its_page(handout, alice_client):
    chunk = handout.chunks.filter(page=1).first()
    url = f"/api/v1/vault/chunks/{chunk.pk}"

    waiting = alice_client.get(url)
    drawn(handout, 1)
    answer = alice_client.get(url).json()

    assert waiting.status_code == 202 and waiting["Retry-After"] == "1"
    assert answer["document_id"] == handout.pk and answer["page"] == 1
    # files.text_pdf writes the page's text into the box (50, 50)-(550, 800) in 10 pt type.
    top = answer["boxes"][0]
    assert 49 <= top[0] < 60 and 49 <= top[1] < 60
    boxes = answer["boxes"]
    assert all(49 <= x0 < x1 <= 550 and 49 <= y0 < y1 <= 800 for x0, y0, x1, y1 in boxes)
    assert len(boxes) > 5  # a line each


def test_a_scanned_pages_passage_is_found_from_its_ocr_words(alice, alice_client, tmp_path):
    scan = read_in(alice, files.scanned_page_pdf(tmp_path / "scan.pdf", text_pages=1))
    chunk = scan.chunks.get(page=2)  # the picture of text, as Tesseract read it

    alice_client.get(page_url(scan, 2, chunk), HTTP_HX_REQUEST="true")
    drawn(scan, 2)
    shown = alice_client.get(page_url(scan, 2, chunk), HTTP_HX_REQUEST="true").text
    boxes = alice_client.get(f"/api/v1/vault/chunks/{chunk.pk}").json()["boxes"]

    assert "Text of page 2, read from the scan" in shown and "<mark>Mitochondrien" in shown
    # The scanned text was set in (40, 40)-(560, 400) of a page drawn whole onto this one.
    assert len(boxes) >= 2
    assert all(30 < x0 < x1 < 570 and 30 < y0 < y1 < 420 for x0, y0, x1, y1 in boxes)


def test_the_web_process_never_draws_a_page(handout, alice_client, monkeypatch):
    def draw_here(*args, **kwargs):
        raise AssertionError("the web process drew a page")

    monkeypatch.setattr("apps.vault.readers.run_isolated", draw_here)
    responses = [
        alice_client.get(page_url(handout, 1), HTTP_HX_REQUEST="true"),
        alice_client.get(image_url(handout, 3)),
        alice_client.get(f"/api/v1/vault/chunks/{handout.chunks.last().pk}"),
    ]

    assert [response.status_code for response in responses] == [200, 202, 202]
    assert Rendering.objects.filter(status=Rendering.Status.RUNNING).count() == 2


def test_a_page_is_drawn_once_and_asked_for_again_for_free(handout, alice_client, settings):
    settings.RATE_LIMIT_PAGES_DRAWN = "1/m"
    assert alice_client.get(image_url(handout, 1)).status_code == 202
    drawn(handout, 1)

    again = [alice_client.get(image_url(handout, 1)).status_code for _ in range(3)]

    assert again == [200, 200, 200]
    assert Rendering.objects.count() == 1


def test_pages_drawn_past_the_rate_are_refused_until_the_person_may_again(
    handout, alice_client, settings
):
    settings.RATE_LIMIT_PAGES_DRAWN = "2/m"
    assert alice_client.get(image_url(handout, 1)).status_code == 202
    assert alice_client.get(image_url(handout, 2)).status_code == 202

    refused = alice_client.get(image_url(handout, 3))
    slot = alice_client.get(page_url(handout, 3), HTTP_HX_REQUEST="true")

    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Too many pages drawn" in refused.json()["detail"]
    assert slot.status_code == 200 and "Too many pages drawn" in slot.text
    assert "intersect once delay:" in slot.text  # it asks again once it may
    assert not Rendering.objects.filter(page=3).exists()


def test_a_page_that_cannot_be_drawn_says_why(alice, alice_client, tmp_path):
    broken = read_in(alice, files.text_pdf(tmp_path / "broken.pdf"))
    broken.path.write_bytes(b"%PDF-1.4 nothing else")
    alice_client.get(image_url(broken, 1))

    rendering = drawn(broken, 1)
    image = alice_client.get(image_url(broken, 1))
    slot = alice_client.get(page_url(broken, 1), HTTP_HX_REQUEST="true").text

    assert rendering.status == Rendering.Status.FAILED
    assert image.status_code == 422 and "cannot be drawn" in image.json()["detail"]
    assert "Page 1 cannot be shown: The PDF cannot be drawn" in slot


def test_an_interrupted_drawing_is_drawn_again_when_asked_for(handout, alice_client):
    alice_client.get(image_url(handout, 1))
    Rendering.objects.interrupt()

    alice_client.get(image_url(handout, 1))

    assert Rendering.objects.get().status == Rendering.Status.RUNNING


def test_pages_outside_the_document_are_not_found(handout, alice_client):
    assert alice_client.get(image_url(handout, 4)).status_code == 404
    assert alice_client.get(page_url(handout, 0), HTTP_HX_REQUEST="true").status_code == 404
    assert not Rendering.objects.exists()


def test_a_word_file_reads_as_its_text_under_its_headings_with_the_passage_marked(
    alice, alice_client, tmp_path
):
    notes = read_in(alice, files.docx_file(tmp_path / "zellen.docx"))
    chunk = notes.chunks.get(section="Zellbiologie > Mitochondrien")

    reader = alice_client.get(f"/vault/documents/{notes.pk}/?chunk={chunk.pk}").text
    alice_client.get(page_url(notes, 0, chunk), HTTP_HX_REQUEST="true")
    drawn(notes, 0)
    shown = alice_client.get(page_url(notes, 0, chunk), HTTP_HX_REQUEST="true").text

    assert f'hx-get="{page_url(notes, 0, chunk)}"' in reader
    assert "<h2>Zellbiologie</h2>" in shown and "<h3>Mitochondrien</h3>" in shown
    assert '<mark id="passage" data-scroll-into-view>Mitochondrien erzeugen ATP' in shown
    assert alice_client.get(image_url(notes, 1)).status_code == 404


def test_a_spreadsheet_reads_as_a_table_a_sheet_with_the_passages_rows_marked(
    alice, alice_client, tmp_path
):
    budget = read_in(alice, files.xlsx_file(tmp_path / "budget.xlsx"))
    chunk = budget.chunks.get(section="Notes")

    alice_client.get(page_url(budget, 0, chunk), HTTP_HX_REQUEST="true")
    drawn(budget, 0)
    shown = alice_client.get(page_url(budget, 0, chunk), HTTP_HX_REQUEST="true").text

    assert shown.count("<table>") == 2 and '<th scope="col">Quarter</th>' in shown
    marked = '<tbody id="passage" class="reader-passage" data-scroll-into-view>'
    assert f"{marked}<tr><td>Enzymes" in shown


def test_a_chunk_id_alone_leads_to_its_page_in_the_reader(handout, alice_client):
    chunk = handout.chunks.filter(page=3).first()
    expected = f"/vault/documents/{handout.pk}/?page=3&chunk={chunk.pk}"

    assert alice_client.get(f"/vault/passages/{chunk.pk}/").url == expected
    assert alice_client.get(f"/study/sources/{chunk.pk}/").url == expected


def test_the_chunk_api_gives_a_text_documents_passage_without_rectangles(
    alice, alice_client, tmp_path
):
    notes = read_in(alice, files.markdown_file(tmp_path / "genetics.md"))
    chunk = Chunk.objects.filter(document=notes).last()

    answer = alice_client.get(f"/api/v1/vault/chunks/{chunk.pk}").json()

    assert answer == {
        "id": chunk.pk,
        "document_id": notes.pk,
        "page": None,
        "section": "Ecology",
        "text": chunk.text,
        "boxes": [],
    }
    assert not Rendering.objects.exists()
