"""Importing a web page by its URL through the page and the REST API: the page is kept and a run
starts, private and odd addresses are refused, an unchanged page starts no second run."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.vault import imports
from apps.vault.models import Document, IngestRun
from apps.vault.readers import extract
from apps.vault.tests import files
from apps.vault.tests.fakeweb import FakeWeb

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_broker")]
API = "/api/v1/vault"
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def web(monkeypatch):
    fake = FakeWeb()
    monkeypatch.setattr(imports, "resolver", fake.resolver)
    monkeypatch.setattr(imports, "connector", fake.connector)
    yield fake
    fake.stop()


def test_url_import_keeps_the_page_and_starts_a_run(alice_client, web, no_broker):
    web.page("/enzymes", files.HTML)
    response = alice_client.post(
        f"{API}/urls", {"url": "http://public.test/enzymes"}, content_type="application/json"
    )
    assert response.status_code == 201
    body = response.json()
    assert body["format"] == "html" and body["source_url"] == "http://public.test/enzymes"
    assert body["filename"] == "public.test_enzymes.html"
    assert IngestRun.objects.get().document_ids == [body["id"]]


def test_url_import_reads_the_page_in_the_charset_its_server_names(alice_client, web):
    # No <meta charset>: only the Content-Type header says windows-1251, as a browser reads it.
    words = "man — это пейджер справочных страниц системы"
    page = f"<html><body><article><h1>man</h1><p>{words}. {words}.</p></article></body></html>"
    web.page("/man", page.encode("cp1251"), Content_Type="text/html; charset=windows-1251")
    response = alice_client.post(
        f"{API}/urls", {"url": "http://public.test/man"}, content_type="application/json"
    )
    assert response.status_code == 201
    [unit] = extract(Document.objects.get().path, "html")["units"]
    assert words in unit.text


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1/", "http://169.254.169.254/", "file:///etc/passwd", "not a url"]
)
def test_url_import_refuses_private_and_odd_addresses(alice_client, web, url):
    response = alice_client.post(f"{API}/urls", {"url": url}, content_type="application/json")
    assert response.status_code == 422
    assert response.json()["detail"]
    assert web.connections == [] and not Document.objects.exists()


def test_a_student_importing_a_page_for_the_class_is_refused_before_its_host_is_looked_up(
    alice_client, web
):
    web.page("/enzymes", files.HTML)
    response = alice_client.post(
        f"{API}/urls",
        {"url": "http://public.test/enzymes", "scope": "class"},
        content_type="application/json",
    )
    assert response.status_code == 403
    assert "teachers" in response.json()["detail"]
    assert web.resolved == [] and web.connections == []
    assert not Document.objects.exists()


def test_url_import_from_the_page_shows_the_reason(alice_client, web):
    response = alice_client.post("/vault/urls/", {"url": "http://[::ffff:127.0.0.1]/"}, **HTMX)
    assert response.status_code == 422
    assert "private" in response.content.decode()


def test_an_unknown_scope_is_a_clear_error_and_nothing_is_stored(alice_client, web, settings):
    upload = SimpleUploadedFile("n.txt", b"x" * 200)
    page = alice_client.post("/vault/upload/", {"files": [upload], "scope": "everyone"}, **HTMX)
    assert page.status_code == 422
    assert "The scope must be" in page.content.decode()
    api = alice_client.post(f"{API}/documents", {"file": upload, "scope": "everyone"})
    # The API's schema lists the two scopes: a third is refused as an invalid field.
    assert api.status_code == 422 and api.json()["detail"][0]["loc"] == ["form", "scope"]
    web.page("/enzymes", files.HTML)
    url = alice_client.post(
        f"{API}/urls",
        {"url": "http://public.test/enzymes", "scope": "everyone"},
        content_type="application/json",
    )
    assert url.status_code == 422 and url.json()["detail"][0]["loc"][-1] == "scope"
    assert not Document.objects.exists() and not IngestRun.objects.exists()
    assert not any((settings.DATA_DIR / "uploads").glob("*"))


def test_importing_an_unchanged_page_again_starts_no_second_run(alice_client, web):
    web.page("/enzymes", files.HTML)
    body = {"url": "http://public.test/enzymes"}
    first = alice_client.post(f"{API}/urls", body, content_type="application/json")
    again = alice_client.post(f"{API}/urls", body, content_type="application/json")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["id"] == first.json()["id"]
    page = alice_client.post("/vault/urls/", body, **HTMX)
    assert "public.test_enzymes.html is unchanged." in page.content.decode()
    assert IngestRun.objects.count() == 1
