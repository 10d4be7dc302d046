"""What one student can take from the others: storage (a quota across vault documents and chat
attachments, old unsent attachments cleared) and request rates (uploads, URL imports,
re-ingestions)."""

import socket
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from apps.chat import attachments
from apps.chat.errors import AttachmentError
from apps.chat.models import Attachment, Thread
from apps.chat.tests.test_attachments_and_voice import docx_file
from apps.vault import imports, uploads
from apps.vault.errors import OverQuota
from apps.vault.models import Document
from apps.vault.tests.fakeweb import FakeWeb
from tests.helpers.documents import make_document

pytestmark = pytest.mark.django_db
MB = 1024 * 1024
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(autouse=True)
def no_broker(monkeypatch):
    """Uploads start ingestion runs; their Celery chain is tested elsewhere."""
    monkeypatch.setattr("apps.vault.ingestion.enqueue", lambda *args: None)


@pytest.fixture
def nearly_full(alice, settings) -> Document:
    """alice has 1 MB of room and 100 bytes of it left."""
    settings.STUDENT_QUOTA_MB = 1
    return make_document(alice, "big.txt", size_bytes=MB - 100)


def text_file(name: str = "notes.txt", size: int = 200) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, b"Photosynthesis. " * (size // 16) + b"x" * (size % 16))


def stored_files(settings) -> list:
    return [path for path in settings.DATA_DIR.rglob("*") if path.is_file()]


# --- Storage quota -----------------------------------------------------------------------------


def test_a_student_over_quota_gets_413_from_the_api_and_nothing_is_stored(
    alice_client, nearly_full, settings
):
    response = alice_client.post("/api/v1/vault/documents", {"file": text_file()})

    assert response.status_code == 413
    assert "storage quota of 1.0\xa0MB" in response.json()["detail"]
    assert list(Document.objects.values_list("filename", flat=True)) == ["big.txt"]
    assert stored_files(settings) == []


def test_a_student_over_quota_gets_a_clear_message_in_the_page(alice_client, nearly_full, settings):
    response = alice_client.post("/vault/upload/", {"files": [text_file()]}, **HTMX)

    assert response.status_code == 422
    assert "storage quota" in response.text and "notes.txt" in response.text
    assert Document.objects.count() == 1
    assert stored_files(settings) == []


def test_what_fits_is_stored_and_counted_against_the_quota(alice, alice_client, nearly_full):
    assert (
        alice_client.post("/api/v1/vault/documents", {"file": text_file(size=80)}).status_code
        == 201
    )
    assert alice.stored_bytes() == MB - 20
    response = alice_client.post("/api/v1/vault/documents", {"file": text_file("more.txt", 80)})
    assert response.status_code == 413


def test_two_uploads_at_once_never_store_more_than_the_quota(alice, settings):
    """The other upload ends while this one comes in: after its room was checked, before it
    is saved."""
    settings.STUDENT_QUOTA_MB = 1
    text = b"Photosynthesis. " * (300 * 1024 // 16)

    def arriving():
        yield text
        uploads.store(alice, "other.txt", [text, text])
        yield text

    with pytest.raises(OverQuota, match="storage quota"):
        uploads.store(alice, "notes.txt", arriving())

    assert list(Document.objects.values_list("filename", flat=True)) == ["other.txt"]
    assert alice.stored_bytes() <= MB
    assert len(stored_files(settings)) == 1


class ArrivingSlowly(SimpleUploadedFile):
    """A DOCX attached while another upload of the person's ends."""

    def __init__(self, size: int, meanwhile):
        super().__init__("cells.docx", b"PK\x03\x04" + b"x" * (size - 4))
        self.meanwhile = meanwhile

    def chunks(self, chunk_size=None):
        self.seek(0)
        yield self.read(self.size // 2)
        self.meanwhile()
        yield self.read()


def test_an_attachment_and_an_upload_at_once_never_store_more_than_the_quota(alice, settings):
    settings.STUDENT_QUOTA_MB = 1
    other = [b"Photosynthesis. " * (900 * 1024 // 16)]
    attachment = ArrivingSlowly(300 * 1024, lambda: uploads.store(alice, "other.txt", other))

    with pytest.raises(AttachmentError, match="storage quota"):
        attachments.accept(alice, attachment)

    assert not Attachment.objects.exists()
    assert alice.stored_bytes() <= MB
    assert len(stored_files(settings)) == 1


def test_a_new_version_of_a_file_only_needs_room_for_the_difference(alice, alice_client, settings):
    settings.STUDENT_QUOTA_MB = 1
    first = alice_client.post("/api/v1/vault/documents", {"file": text_file(size=MB - 1000)})
    assert first.status_code == 201

    again = alice_client.post("/api/v1/vault/documents", {"file": text_file(size=MB - 500)})

    assert again.status_code == 201 and again.json()["id"] == first.json()["id"]
    assert alice.stored_bytes() == MB - 500


def test_chat_attachments_count_against_the_same_quota(alice, alice_client, nearly_full, settings):
    thread = Thread.objects.create(owner=alice)

    response = alice_client.post(f"/chat/{thread.pk}/attachments/", {"file": docx_file("Cells.")})

    assert response.status_code == 400
    assert "storage quota" in response.text
    assert not Attachment.objects.exists()
    assert stored_files(settings) == []


def test_teachers_have_no_quota(tess, tess_client, settings):
    settings.STUDENT_QUOTA_MB = 1
    make_document(tess, "huge.txt", size_bytes=50 * MB)
    assert tess_client.post("/api/v1/vault/documents", {"file": text_file()}).status_code == 201


def test_the_settings_page_shows_how_much_of_the_quota_is_used(alice_client, nearly_full):
    page = alice_client.get("/accounts/settings/").text
    assert "1024.0\xa0KB" in page or "1.0\xa0MB" in page
    assert 'id="storage"' in page and "<meter" in page


# --- Unsent attachments --------------------------------------------------------------------------


def test_attachments_never_sent_are_deleted_after_a_day_by_the_next_upload(
    alice, bob, alice_client, bob_client, settings
):
    alice_thread = Thread.objects.create(owner=alice)
    bob_thread = Thread.objects.create(owner=bob)
    alice_client.post(f"/chat/{alice_thread.pk}/attachments/", {"file": docx_file("Old.")})
    alice_client.post(f"/chat/{alice_thread.pk}/attachments/", {"file": docx_file("Recent.")})
    old, recent = Attachment.objects.order_by("pk")
    Attachment.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(hours=25))
    Attachment.objects.filter(pk=recent.pk).update(created_at=timezone.now() - timedelta(hours=23))
    assert old.path.is_file()

    bob_client.post(f"/chat/{bob_thread.pk}/attachments/", {"file": docx_file("Bob's.")})

    assert not Attachment.objects.filter(pk=old.pk).exists()
    assert not old.path.exists()
    assert Attachment.objects.filter(pk=recent.pk).exists() and recent.path.is_file()
    assert Attachment.objects.filter(owner=bob).count() == 1


def test_an_attachment_sent_with_a_question_is_kept(alice, alice_client):
    thread = Thread.objects.create(owner=alice)
    alice_client.post(f"/chat/{thread.pk}/attachments/", {"file": docx_file("Sent.")})
    sent = Attachment.objects.get()
    question = thread.messages.create(role="user", content="What is this?")
    Attachment.objects.filter(pk=sent.pk).update(
        message=question, created_at=timezone.now() - timedelta(days=30)
    )

    alice_client.post(f"/chat/{thread.pk}/attachments/", {"file": docx_file("Next.")})

    assert Attachment.objects.filter(pk=sent.pk).exists() and sent.path.is_file()


# --- Rate limits ---------------------------------------------------------------------------------


@pytest.fixture
def web(monkeypatch):
    fake = FakeWeb()
    monkeypatch.setattr(imports, "resolver", fake.resolver)
    monkeypatch.setattr(imports, "connector", fake.connector)
    yield fake
    fake.stop()


@pytest.mark.usefixtures("midday")  # a minute's rate window must not turn mid-test
def test_uploads_past_the_rate_get_429_with_a_message_in_the_api(
    alice_client, bob_client, settings
):
    settings.RATE_LIMIT_UPLOADS = "2/m"
    for n in range(2):
        response = alice_client.post("/api/v1/vault/documents", {"file": text_file(f"n{n}.txt")})
        assert response.status_code == 201

    refused = alice_client.post("/api/v1/vault/documents", {"file": text_file("n2.txt")})

    assert refused.status_code == 429
    assert refused.json()["detail"].startswith("Too many uploads: at most 2 per minute.")
    assert 1 <= int(refused["Retry-After"]) <= 60  # what the message says, for scripts
    assert not Document.objects.filter(filename="n2.txt").exists()
    # The limit is per person: bob is not slowed down by alice.
    assert bob_client.post("/api/v1/vault/documents", {"file": text_file()}).status_code == 201


@pytest.mark.usefixtures("midday")  # a minute's rate window must not turn mid-test
def test_uploads_past_the_rate_get_a_message_in_the_page(alice_client, settings):
    settings.RATE_LIMIT_UPLOADS = "1/h"
    alice_client.post("/vault/upload/", {"files": [text_file("a.txt")]}, **HTMX)

    htmx = alice_client.post("/vault/upload/", {"files": [text_file("b.txt")]}, **HTMX)
    plain = alice_client.post("/vault/upload/", {"files": [text_file("c.txt")]})

    assert htmx.status_code == 429
    assert htmx["HX-Retarget"] == "#page-alerts"
    assert "Too many uploads: at most 1 per hour." in htmx.text
    assert "<html" not in htmx.text
    assert plain.status_code == 429
    assert "Too many uploads" in plain.text and "<html" in plain.text
    assert 1 <= int(htmx["Retry-After"]) <= 3600 and 1 <= int(plain["Retry-After"]) <= 3600
    assert list(Document.objects.values_list("filename", flat=True)) == ["a.txt"]


@pytest.mark.usefixtures("midday")  # a minute's rate window must not turn mid-test
def test_url_imports_past_the_rate_get_429(alice_client, settings, web):
    settings.RATE_LIMIT_URL_IMPORTS = "1/m"
    web.page("/article", "<html><body><p>" + "Cells divide. " * 40 + "</p></body></html>")
    url = "http://public.test/article"
    assert (
        alice_client.post(
            "/api/v1/vault/urls", {"url": url}, content_type="application/json"
        ).status_code
        == 201
    )

    api = alice_client.post("/api/v1/vault/urls", {"url": url}, content_type="application/json")
    page = alice_client.post("/vault/urls/", {"url": url}, **HTMX)

    assert api.status_code == 429 and "Too many web page imports" in api.json()["detail"]
    assert page.status_code == 429 and "Too many web page imports" in page.text
    assert len(web.connections) == 1  # the refused imports fetched nothing


def test_reingestions_past_the_rate_get_429_in_the_api_and_the_page(
    alice, bob, alice_client, bob_client, settings, midday
):
    settings.RATE_LIMIT_REINGEST = "2/h"
    document = make_document(alice, status=Document.Status.DONE)
    path = f"/api/v1/vault/documents/{document.pk}/reingest"
    assert alice_client.post(path).status_code == 202
    assert alice_client.post(f"/vault/documents/{document.pk}/reingest/", **HTMX).status_code == 200

    api = alice_client.post(path)
    page = alice_client.post(f"/vault/documents/{document.pk}/reingest/", **HTMX)

    assert api.status_code == 429
    assert api.json()["detail"].startswith("Too many re-ingestions: at most 2 per hour.")
    assert 1 <= int(api["Retry-After"]) <= 3600
    assert page.status_code == 429 and "Too many re-ingestions" in page.text
    assert page["Retry-After"]
    assert alice.ingest_runs.count() == 2
    # Per person: bob re-ingests his own document all the same.
    own = make_document(bob)
    assert bob_client.post(f"/api/v1/vault/documents/{own.pk}/reingest").status_code == 202


@pytest.mark.usefixtures("midday")  # a minute's rate window must not turn mid-test
def test_an_empty_rate_turns_the_limit_off(alice_client, settings):
    settings.RATE_LIMIT_UPLOADS = ""
    for n in range(5):
        assert (
            alice_client.post(
                "/api/v1/vault/documents", {"file": text_file(f"{n}.txt")}
            ).status_code
            == 201
        )


@pytest.mark.usefixtures("midday")  # a minute's rate window must not turn mid-test
def test_with_redis_down_the_limit_is_not_checked_rather_than_a_500(alice_client, settings):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    settings.CACHES = {
        "default": {
            "BACKEND": "cognivault_site.cache.SharedPoolRedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed}/0",
        }
    }
    settings.RATE_LIMIT_UPLOADS = "1/m"

    for name in ("a.txt", "b.txt"):
        assert (
            alice_client.post("/api/v1/vault/documents", {"file": text_file(name)}).status_code
            == 201
        )
