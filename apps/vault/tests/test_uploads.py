"""Uploading files through the page and the REST API: what is stored where, what is refused
before anything is stored, and the scope an upload lands in."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.vault.models import Document, IngestRun
from apps.vault.tests import files
from tests.helpers.documents import make_category

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_broker")]
API = "/api/v1/vault"
HTMX = {"HTTP_HX_REQUEST": "true"}


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
    """A teacher-only action: 403 to a student (docs/api.md, who sees what)."""
    path = tmp_path / "a.md"
    path.write_text("# A\n\ntext text text text text")
    response = alice_client.post(f"{API}/documents", {"file": as_file(path), "scope": "class"})
    assert response.status_code == 403
    assert "teachers" in response.json()["detail"]
    assert not Document.objects.exists()


def test_a_student_files_a_personal_document_under_a_category(alice_client):
    """Categories are the teacher's to make; a student may file their own documents under one,
    as the Knowledge Base page offers."""
    category = make_category()
    upload = SimpleUploadedFile("n.txt", b"Mitochondria make ATP. " * 10)
    response = alice_client.post(f"{API}/documents", {"file": upload, "category": category.pk})
    assert response.status_code == 201
    assert (response.json()["scope"], response.json()["category_id"]) == ("personal", category.pk)


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
