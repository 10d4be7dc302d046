"""Attachments (images, PDF, DOCX) on a chat message, saving one to the vault, and voice input
with the real speech model (the rest of voice input: test_transcriptions.py).

The web process stores an attachment after a look at its first bytes; a worker reads it
(`attachments.read`, the body of tasks.read_attachment, called here as the worker calls it)."""

import io
import re
import shutil
import subprocess
from datetime import timedelta

import docx
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from apps.chat import attachments
from apps.chat.models import Attachment, Thread
from apps.vault.models import Document
from tests.helpers.isolation import assert_only_owner_can_reach

pytestmark = pytest.mark.django_db


def docx_file(text: str) -> SimpleUploadedFile:
    document = docx.Document()
    document.add_paragraph(text)
    buffer = io.BytesIO()
    document.save(buffer)
    return SimpleUploadedFile("notes.docx", buffer.getvalue())


@pytest.fixture
def thread(alice) -> Thread:
    return Thread.objects.create(owner=alice)


def attach_and_read(client, thread: Thread, upload) -> tuple[Attachment, str]:
    """Attach through the page, let the worker read it; the attachment and its chip then."""
    response = client.post(f"/chat/{thread.pk}/attachments/", {"file": upload})
    assert response.status_code == 200 and "reading…" in response.text
    attachment = Attachment.objects.latest("pk")
    assert attachment.status == Attachment.Status.PENDING
    attachments.read(attachment.pk, worker="jobs@test")
    attachment.refresh_from_db()
    return attachment, client.get(f"/chat/attachments/{attachment.pk}/chip/").text


def test_a_docx_attachment_is_read_for_the_model(alice_client, thread):
    attachment, chip = attach_and_read(alice_client, thread, docx_file("Osmosis moves water."))

    assert attachment.status == Attachment.Status.READY
    assert attachment.kind == Attachment.Kind.DOCX
    assert "Osmosis moves water." in attachment.text
    assert "reading…" not in chip and 'name="attachment_ids"' in chip


def test_the_web_process_only_looks_at_an_attachments_first_bytes(
    alice_client, thread, monkeypatch
):
    def read_here(*args, **kwargs):
        raise AssertionError("the web process read an attachment")

    monkeypatch.setattr("apps.vault.readers.run_isolated", read_here)
    response = alice_client.post(f"/chat/{thread.pk}/attachments/", {"file": docx_file("Cells")})

    assert response.status_code == 200
    assert Attachment.objects.get().status == Attachment.Status.PENDING


def test_attachments_are_read_by_the_jobs_worker_not_a_chat_worker():
    from celery import current_app as app

    route = app.amqp.router.route({}, "apps.chat.tasks.read_attachment")
    assert route["queue"].name == "celery"
    assert app.amqp.router.route({}, "apps.chat.tasks.write_answer")["queue"].name == "chat"


def test_a_file_of_another_type_is_refused_with_a_reason(alice_client, thread):
    fake = SimpleUploadedFile("notes.docx", b"MZ\x90\x00 this is a program, not a document")
    response = alice_client.post(f"/chat/{thread.pk}/attachments/", {"file": fake})
    assert response.status_code == 400
    assert "only images (PNG, JPEG, GIF, WebP), PDF and DOCX" in response.text
    assert not Attachment.objects.exists()


def test_a_damaged_pdf_fails_under_its_own_name_and_its_file_is_deleted(alice_client, thread):
    damaged = SimpleUploadedFile("lecture.pdf", b"%PDF-1.4 and then nothing a reader can use")
    attachment, chip = attach_and_read(alice_client, thread, damaged)

    assert attachment.status == Attachment.Status.FAILED
    assert attachment.error.startswith("lecture.pdf: The PDF is damaged")
    assert 'role="alert"' in chip and "lecture.pdf: The PDF is damaged" in chip
    # The reader's own words name the file as the person knows it, not where it was stored.
    assert "attachments/" not in chip
    assert "Failed to open file &#x27;lecture.pdf&#x27;" in chip
    assert 'name="attachment_ids"' not in chip  # not sent with the next question
    assert not attachment.path.exists()


def test_a_reader_that_breaks_fails_the_attachment_with_a_reason_and_deletes_its_file(
    alice_client, thread, monkeypatch
):
    def broken(*args, **kwargs):
        raise KeyError("a bug in a reader")

    monkeypatch.setattr("apps.vault.readers.run_isolated", broken)
    attachment, chip = attach_and_read(alice_client, thread, docx_file("Cells."))

    assert attachment.status == Attachment.Status.FAILED
    assert "notes.docx could not be read; attach it again." in chip
    assert not attachment.path.exists()


def test_failed_reads_count_in_the_attachment_rate_limit(settings, alice_client, thread, midday):
    settings.RATE_LIMIT_ATTACHMENTS = "2/m"
    for _ in range(2):
        blank = SimpleUploadedFile("scan.pdf", b"%PDF-1.4 nothing to read")
        attachment, _ = attach_and_read(alice_client, thread, blank)
        assert attachment.status == Attachment.Status.FAILED

    response = alice_client.post(
        f"/chat/{thread.pk}/attachments/", {"file": SimpleUploadedFile("scan.pdf", b"%PDF-1.4")}
    )

    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= 60
    assert "Too many attachments: at most 2 per minute." in response.text
    assert Attachment.objects.count() == 2


@pytest.mark.parametrize(
    ("status", "refusal"),
    [("pending", "notes.docx is still being read"), ("failed", "Remove notes.docx to send")],
)
def test_a_question_with_an_attachment_not_read_says_so(alice_client, thread, status, refusal):
    alice_client.post(f"/chat/{thread.pk}/attachments/", {"file": docx_file("Cells.")})
    attachment = Attachment.objects.get()
    Attachment.objects.filter(pk=attachment.pk).update(status=status, error="It is blank.")

    response = alice_client.post(
        f"/api/v1/chat/sessions/{thread.pk}/messages",
        {"content": "What is in it?", "attachments": [attachment.pk]},
        content_type="application/json",
    )

    assert response.status_code == 400
    assert refusal in response.json()["detail"]
    assert not thread.messages.exists()


def test_an_oversized_attachment_is_refused(alice_client, thread, settings):
    settings.CHAT_MAX_ATTACHMENT_MB = 0
    response = alice_client.post(f"/chat/{thread.pk}/attachments/", {"file": docx_file("x")})
    assert response.status_code == 400
    assert "larger than 0 MB" in response.text


def test_an_attachment_goes_to_the_vault_in_one_click(alice_client, thread):
    attachment, _ = attach_and_read(alice_client, thread, docx_file("Osmosis."))
    response = alice_client.post(f"/chat/attachments/{attachment.pk}/save/", HTTP_HX_REQUEST="true")
    assert "is being added to your vault" in response.text
    document = Document.objects.get()
    assert (document.filename, document.scope, document.owner.username) == (
        "notes.docx", Document.Scope.PERSONAL, "alice"
    )  # fmt: skip
    again = alice_client.post(f"/chat/attachments/{attachment.pk}/save/", HTTP_HX_REQUEST="true")
    assert "already in your vault" in again.text
    assert Document.objects.count() == 1


def test_bob_cannot_attach_to_alices_thread_or_touch_her_attachments(
    alice_client, bob_client, thread
):
    alice_client.post(f"/chat/{thread.pk}/attachments/", {"file": docx_file("Private.")})
    attachment = Attachment.objects.get()
    assert_only_owner_can_reach(f"/chat/{thread.pk}/attachments/", bob_client, ["post"])
    assert_only_owner_can_reach(f"/chat/attachments/{attachment.pk}/", bob_client, ["get"])
    assert_only_owner_can_reach(f"/chat/attachments/{attachment.pk}/chip/", bob_client, ["get"])
    assert_only_owner_can_reach(f"/chat/attachments/{attachment.pk}/save/", bob_client, ["post"])
    assert not Document.objects.exists()


@pytest.mark.embedded
@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_spoken_question_comes_back_as_text(alice_client, transcription_worker, tmp_path):
    assert shutil.which("espeak-ng"), "espeak-ng is installed by `make setup`"
    wav = tmp_path / "question.wav"
    subprocess.run(
        ["espeak-ng", "-v", "en-us", "-s", "140", "-w", str(wav), "What is a brown fox?"],
        check=True,
    )
    response = alice_client.post(
        "/api/v1/chat/transcribe", {"file": SimpleUploadedFile("q.wav", wav.read_bytes())}
    )
    assert response.status_code == 200
    # Whisper's words differ between CPUs: four of the five, not all.
    heard = set(re.findall(r"[a-z]+", response.json()["text"].lower()))
    assert len({"what", "is", "a", "brown", "fox"} & heard) >= 4, heard


def png_header(width: int, height: int) -> bytes:
    """A PNG that claims a size: enough for a decompression bomb's header."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00" * 64)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def test_a_decompression_bomb_image_is_refused(alice_client, thread):
    bomb = SimpleUploadedFile("huge.png", png_header(60_000, 60_000))
    attachment, chip = attach_and_read(alice_client, thread, bomb)
    assert attachment.status == Attachment.Status.FAILED
    assert "huge.png has too many pixels" in chip
    assert not attachment.path.exists()


def test_an_image_over_the_pixel_limit_is_refused(alice_client, thread):
    wide = SimpleUploadedFile("wide.png", png_header(10_000, 5_000))
    attachment, chip = attach_and_read(alice_client, thread, wide)
    assert "wide.png has too many pixels; images are limited to 40 megapixels." in chip


def test_a_small_image_is_attached_for_the_model(alice_client, thread):
    photo = SimpleUploadedFile("cell.png", png_header(8, 8))
    attachment, _ = attach_and_read(alice_client, thread, photo)
    assert (attachment.kind, attachment.status) == (Attachment.Kind.IMAGE, "ready")


def test_an_attached_image_is_opened_only_in_the_reading_sandbox(alice_client, thread, monkeypatch):
    """Its header is parsed by the sandbox child: in the worker no image library opens it."""

    def opened_here(*args, **kwargs):
        raise AssertionError("the worker opened an attached image")

    monkeypatch.setattr("PIL.Image.open", opened_here)
    photo = SimpleUploadedFile("cell.png", png_header(8, 8))
    attachment, _ = attach_and_read(alice_client, thread, photo)
    assert (attachment.kind, attachment.status) == (Attachment.Kind.IMAGE, "ready")


def test_an_attachment_whose_worker_died_while_reading_it_says_so(alice_client, thread, settings):
    alice_client.post(f"/chat/{thread.pk}/attachments/", {"file": docx_file("Cells.")})
    attachment = Attachment.objects.get()
    assert Attachment.objects.claim(attachment.pk, "jobs@dead")
    long_ago = timezone.now() - timedelta(seconds=settings.INGEST_STALE_SECONDS + 1)
    Attachment.objects.filter(pk=attachment.pk).update(heartbeat_at=long_ago)

    chip = alice_client.get(f"/chat/attachments/{attachment.pk}/chip/").text

    assert "The worker reading this file stopped; attach it again." in chip
    assert Attachment.objects.get().status == Attachment.Status.FAILED
    attachments.read(attachment.pk, worker="jobs@late")  # its message delivered again: no-op
    assert Attachment.objects.get().status == Attachment.Status.FAILED
