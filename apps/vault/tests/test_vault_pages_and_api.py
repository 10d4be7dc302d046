"""Upload, URL import, documents, categories and runs through the pages and the REST API."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from apps.vault import imports
from apps.vault.models import Category, Document, IngestRun
from apps.vault.readers import extract
from apps.vault.tests import files
from apps.vault.tests.fakeweb import FakeWeb
from tests.helpers.documents import make_category, make_document
from tests.helpers.isolation import assert_only_owner_can_reach

pytestmark = pytest.mark.django_db
API = "/api/v1/vault"
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def no_broker(django_capture_on_commit_callbacks, monkeypatch):
    """Runs are created here; their Celery chain is tested elsewhere, so nothing is sent."""
    sent = []
    monkeypatch.setattr("apps.vault.tasks.enqueue", lambda *args: sent.append(args))
    return sent


@pytest.fixture
def web(monkeypatch):
    fake = FakeWeb()
    monkeypatch.setattr(imports, "resolver", fake.resolver)
    monkeypatch.setattr(imports, "connector", fake.connector)
    yield fake
    fake.stop()


def as_file(path, name=None):
    return SimpleUploadedFile(name or path.name, path.read_bytes())


def test_alice_uploads_several_files_and_a_run_starts(alice_client, alice, tmp_path):
    response = alice_client.post(
        "/vault/upload/",
        {
            "files": [
                as_file(files.docx_file(tmp_path / "zelle.docx")),
                as_file(files.csv_file(tmp_path / "arten.csv")),
            ],
            "scope": "personal",
        },
        **HTMX,
    )
    assert response.status_code == 200
    assert set(Document.objects.values_list("filename", flat=True)) == {"zelle.docx", "arten.csv"}
    run = IngestRun.objects.get()
    assert run.owner == alice and len(run.document_ids) == 2
    assert b'id="run-timeline"' in response.content and b'id="library"' in response.content


def test_files_are_stored_under_a_generated_name_inside_data_dir(alice_client, settings):
    upload = SimpleUploadedFile("../../evil.txt", b"x" * 200)
    alice_client.post("/vault/upload/", {"files": [upload]})
    document = Document.objects.get()
    assert document.filename == "evil.txt"
    assert document.path.parent == settings.DATA_DIR / "uploads"
    assert "evil" not in document.stored_name


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("virus.exe", b"MZ\x90\x00", "not accepted"),
        ("fake.pdf", b"GIF89a not a pdf", "not a .pdf file"),
        ("fake.docx", b"%PDF-1.4 not a docx", "not a .docx file"),
        ("empty.txt", b"", "empty"),
        ("binary.txt", b"\x00\x01\x02\x03", "not a .txt file"),
        # Office encrypts a .docx/.xlsx/.pptx with a password into an OLE container, the old
        # Office 97-2003 format: "not a .xlsx file" would leave its owner puzzled.
        ("noten.xlsx", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(600), "password-protected"),
    ],
)
def test_bad_files_are_refused_before_anything_is_stored(
    alice_client, settings, name, content, message
):
    response = alice_client.post(
        "/vault/upload/", {"files": [SimpleUploadedFile(name, content)]}, **HTMX
    )
    assert response.status_code == 422
    assert message in response.content.decode()
    assert not Document.objects.exists()
    assert not any((settings.DATA_DIR / "uploads").glob("*"))


def test_an_oversized_file_is_refused(alice_client, settings):
    settings.MAX_UPLOAD_MB = 1
    big = SimpleUploadedFile("big.txt", b"a" * (1024 * 1024 + 1))
    response = alice_client.post(f"{API}/documents", {"file": big})
    assert response.status_code == 422
    assert "1 MB" in response.json()["detail"]
    assert not Document.objects.exists()


def test_more_than_100_files_at_once_are_refused(alice_client):
    many = [SimpleUploadedFile(f"n{i}.txt", b"x" * 150) for i in range(101)]
    response = alice_client.post("/vault/upload/", {"files": many})
    assert response.status_code == 400
    assert not Document.objects.exists()


def test_a_student_cannot_add_class_documents(alice_client, tmp_path):
    path = tmp_path / "a.md"
    path.write_text("# A\n\ntext text text text text")
    response = alice_client.post(f"{API}/documents", {"file": as_file(path), "scope": "class"})
    assert response.status_code == 422
    assert "teachers" in response.json()["detail"]


def test_the_api_uploads_and_answers_with_the_document(tess_client, tmp_path):
    category = make_category()
    response = tess_client.post(
        f"{API}/documents",
        {
            "file": as_file(files.pptx_file(tmp_path / "s.pptx")),
            "scope": "class",
            "category": category.pk,
        },
    )
    assert response.status_code == 201
    body = response.json()
    assert {
        "id",
        "filename",
        "format",
        "category_id",
        "scope",
        "sha256",
        "status",
        "error",
        "pages",
        "chunk_count",
        "created_at",
        "ingested_at",
    } <= set(body)
    assert (body["format"], body["scope"], body["category_id"], body["status"]) == (
        "pptx",
        "class",
        category.pk,
        "pending",
    )
    again = tess_client.post(
        f"{API}/documents",
        {"file": as_file(files.pptx_file(tmp_path / "s.pptx")), "scope": "class"},
    )
    assert again.json()["id"] == body["id"]


def test_the_same_filename_in_the_same_scope_replaces_the_content(alice_client, tmp_path):
    path = tmp_path / "n.md"
    path.write_text("# One\n\nfirst version of the notes")
    first = alice_client.post(f"{API}/documents", {"file": as_file(path)}).json()
    path.write_text("# Two\n\nsecond version of the notes")
    second = alice_client.post(f"{API}/documents", {"file": as_file(path)}).json()
    assert second["id"] == first["id"] and second["sha256"] != first["sha256"]


def test_ingest_starts_a_run_and_reports_its_steps(alice_client, alice):
    response = alice_client.post(f"{API}/ingest", {}, content_type="application/json")
    assert response.status_code == 202
    run = alice_client.get(f"{API}/ingest/{response.json()['run_id']}").json()
    assert run["status"] == "pending"
    assert [step["name"] for step in run["steps"]] == ["scan", "extract", "chunk", "embed", "index"]
    assert set(run["steps"][0]) >= {"name", "status", "done", "total", "detail"}
    assert run["error"] == ""


def test_the_run_page_polls_until_the_run_is_finished(alice_client, alice):
    run_id = alice_client.post(f"{API}/ingest", {}, content_type="application/json").json()[
        "run_id"
    ]
    page = alice_client.get(f"/vault/runs/{run_id}/", **HTMX)
    assert b'hx-trigger="every 1s"' in page.content
    IngestRun.objects.filter(pk=run_id).update(status="done")
    done = alice_client.get(f"/vault/runs/{run_id}/", **HTMX)
    assert b"every 1s" not in done.content
    assert done["HX-Trigger"] == "vault-run-finished"


def test_bob_cannot_reach_alices_documents_or_runs(alice, alice_client, bob_client):
    document = make_document(alice)
    run_id = alice_client.post(f"{API}/ingest", {}, content_type="application/json").json()[
        "run_id"
    ]
    assert_only_owner_can_reach(f"{API}/documents/{document.pk}", bob_client, ["get", "delete"])
    assert_only_owner_can_reach(f"{API}/documents/{document.pk}/reingest", bob_client, ["post"])
    assert_only_owner_can_reach(f"{API}/ingest/{run_id}", bob_client, ["get"])
    assert_only_owner_can_reach(f"/vault/runs/{run_id}/", bob_client, ["get"])
    assert_only_owner_can_reach(f"/vault/documents/{document.pk}/delete/", bob_client, ["post"])
    assert_only_owner_can_reach(f"/vault/documents/{document.pk}/reingest/", bob_client, ["post"])
    assert bob_client.get(f"{API}/documents").json() == []
    assert Document.objects.filter(pk=document.pk).exists()


def test_teachers_never_see_students_personal_documents(alice, tess_client):
    document = make_document(alice)
    assert tess_client.get(f"{API}/documents/{document.pk}").status_code == 404
    assert b"notes.txt" not in tess_client.get("/vault/").content


def test_a_student_sees_class_documents_but_cannot_delete_them(tess, alice_client):
    document = make_document(tess, "lesson.md", scope="class")
    assert alice_client.get(f"{API}/documents/{document.pk}").status_code == 200
    assert alice_client.delete(f"{API}/documents/{document.pk}").status_code == 403
    assert alice_client.post(f"/vault/documents/{document.pk}/delete/").status_code == 403
    assert Document.objects.filter(pk=document.pk).exists()


def test_deleting_through_the_page(alice, alice_client):
    document = make_document(alice)
    response = alice_client.post(f"/vault/documents/{document.pk}/delete/", **HTMX)
    assert response.status_code == 200
    assert not Document.objects.exists()


def test_only_teachers_manage_categories(tess_client, alice_client):
    assert (
        alice_client.post(
            f"{API}/categories", {"name": "Chemie"}, content_type="application/json"
        ).status_code
        == 403
    )
    assert alice_client.post("/vault/categories/", {"name": "Chemie"}).status_code == 403
    created = tess_client.post(
        f"{API}/categories", {"name": "Chemie"}, content_type="application/json"
    )
    assert created.status_code == 201
    duplicate = tess_client.post(
        f"{API}/categories", {"name": "Chemie"}, content_type="application/json"
    )
    assert duplicate.status_code == 409 and "exists" in duplicate.json()["detail"]
    assert alice_client.get(f"{API}/categories").json() == [
        {"id": created.json()["id"], "name": "Chemie"}
    ]
    tess_client.post("/vault/categories/", {"name": "Physik"}, **HTMX)
    assert set(Category.objects.values_list("name", flat=True)) == {"Chemie", "Physik"}


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


def test_url_import_from_the_page_shows_the_reason(alice_client, web):
    response = alice_client.post("/vault/urls/", {"url": "http://[::ffff:127.0.0.1]/"}, **HTMX)
    assert response.status_code == 422
    assert "private" in response.content.decode()


def test_the_page_lists_documents_with_their_figures(alice, alice_client):
    make_document(
        alice, "zelle.pdf", pages=21, chunk_count=40, status="done", sha256="abcdef12" + "0" * 56
    )
    page = alice_client.get("/vault/").content.decode()
    assert "zelle.pdf" in page and "21" in page and "40" in page and "abcdef12" in page


def test_anonymous_people_are_sent_to_log_in():
    assert Client().get("/vault/").status_code == 302
    assert Client().get(f"{API}/documents").status_code == 401


@pytest.mark.parametrize("category", ["999", "not-a-number", "1; DROP TABLE"])
def test_an_unknown_category_is_a_clear_error(alice_client, category):
    upload = SimpleUploadedFile("n.txt", b"x" * 200)
    response = alice_client.post(
        "/vault/upload/", {"files": [upload], "category": category}, **HTMX
    )
    assert response.status_code == 422
    assert "category does not exist" in response.content.decode()
    api = alice_client.post(f"{API}/documents", {"file": upload, "category": category})
    assert api.status_code in (404, 422) and "detail" in api.json()


def test_an_upload_without_files_asks_for_one(alice_client):
    response = alice_client.post("/vault/upload/", {"scope": "personal"}, **HTMX)
    assert response.status_code == 422
    assert "Choose at least one file." in response.content.decode()
    assert not IngestRun.objects.exists()


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


def test_a_blank_category_name_is_a_clear_error(tess_client):
    page = tess_client.post("/vault/categories/", {"name": "   "}, **HTMX)
    assert page.status_code == 422 and "Give the category a name." in page.content.decode()
    api = tess_client.post(f"{API}/categories", {"name": "   "}, content_type="application/json")
    assert api.status_code == 422 and api.json()["detail"] == "Give the category a name."
    assert not Category.objects.exists()


def test_a_duplicate_category_from_the_page_is_a_clear_error(tess_client):
    make_category("Chemie")
    response = tess_client.post("/vault/categories/", {"name": "Chemie"}, **HTMX)
    assert response.status_code == 409
    assert "A category named Chemie exists already." in response.content.decode()
    assert Category.objects.count() == 1


def test_bob_cannot_start_an_ingestion_of_alices_document(alice, bob_client):
    document = make_document(alice)
    response = bob_client.post(
        f"{API}/ingest", {"document_ids": [document.pk]}, content_type="application/json"
    )
    assert response.status_code == 404 and "detail" in response.json()
    assert not IngestRun.objects.exists()


def test_a_student_cannot_start_an_ingestion_of_a_class_document(tess, alice_client):
    document = make_document(tess, "lesson.md", scope="class")
    response = alice_client.post(
        f"{API}/ingest", {"document_ids": [document.pk]}, content_type="application/json"
    )
    assert response.status_code == 404
    assert not IngestRun.objects.exists()


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


def test_more_files_than_allowed_get_a_page_that_says_so(alice_client, settings):
    uploads = [
        SimpleUploadedFile(f"note{i}.txt", b"x" * 200)
        for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FILES + 1)
    ]
    response = alice_client.post("/vault/upload/", {"files": uploads, "scope": "personal"})
    assert response.status_code == 400
    assert "more than 100 files in one upload" in response.text
    assert not Document.objects.exists()


@pytest.mark.parametrize(("who", "expected"), [("tess", "class"), ("alice", "personal")])
def test_an_upload_that_names_no_scope_lands_in_the_same_place_from_the_page_and_the_api(
    request, who, expected
):
    """A teacher's upload is for the class, a student's is personal: one default for both."""
    client = request.getfixturevalue(f"{who}_client")
    page = SimpleUploadedFile("page.txt", b"Mitochondria make ATP. " * 10)
    api = SimpleUploadedFile("api.txt", b"Ribosomes make proteins. " * 10)
    assert client.post("/vault/upload/", {"files": [page]}, **HTMX).status_code == 200
    response = client.post(f"{API}/documents", {"file": api})
    assert response.status_code == 201 and response.json()["scope"] == expected
    assert dict(Document.objects.values_list("filename", "scope")) == {
        "page.txt": expected,
        "api.txt": expected,
    }


def test_a_big_vault_is_listed_25_documents_a_page_newest_first(alice_client, alice):
    for n in range(30):
        make_document(alice, f"skript-{n:02d}.txt", sha256=f"{n:064x}")

    first = alice_client.get("/vault/").content.decode()
    second = alice_client.get("/vault/?page=2", **HTMX).content.decode()

    assert first.count('<tr id="document-') == 25 and "skript-29.txt" in first
    assert "Documents 1–25 of 30" in first and 'href="?page=2"' in first
    assert second.count('<tr id="document-') == 5 and "skript-00.txt" in second
    assert 'id="library"' in second and "<html" not in second  # htmx: the list alone
    assert 'href="?page=1"' in second
