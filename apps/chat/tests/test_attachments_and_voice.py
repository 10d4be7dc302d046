"""Attachments (images, PDF, DOCX) on a chat message, saving one to the vault, and voice input."""

import io
import re
import shutil
import subprocess

import docx
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

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


def test_a_docx_attachment_is_read_for_the_model(alice_client, thread):
    response = alice_client.post(
        f"/chat/{thread.pk}/attachments/", {"file": docx_file("Osmosis moves water.")}
    )
    assert response.status_code == 200
    attachment = Attachment.objects.get(owner__username="alice")
    assert attachment.kind == Attachment.Kind.DOCX
    assert "Osmosis moves water." in attachment.text


def test_a_file_of_another_type_is_refused_with_a_reason(alice_client, thread):
    fake = SimpleUploadedFile("notes.docx", b"MZ\x90\x00 this is a program, not a document")
    response = alice_client.post(f"/chat/{thread.pk}/attachments/", {"file": fake})
    assert response.status_code == 400
    assert "only images (PNG, JPEG, GIF, WebP), PDF and DOCX" in response.text
    assert not Attachment.objects.exists()


def test_a_damaged_pdf_is_refused_under_its_own_name(alice_client, thread):
    damaged = SimpleUploadedFile("lecture.pdf", b"%PDF-1.4 and then nothing a reader can use")
    response = alice_client.post(f"/chat/{thread.pk}/attachments/", {"file": damaged})
    assert response.status_code == 400
    assert "lecture.pdf: The PDF is damaged" in response.text
    # The reader's own words name the file as the person knows it, not where it was stored.
    assert "attachments/" not in response.text
    assert "Failed to open file &#x27;lecture.pdf&#x27;" in response.text
    assert not Attachment.objects.exists()


def test_an_oversized_attachment_is_refused(alice_client, thread, settings):
    settings.CHAT_MAX_ATTACHMENT_MB = 0
    response = alice_client.post(f"/chat/{thread.pk}/attachments/", {"file": docx_file("x")})
    assert response.status_code == 400
    assert "larger than 0 MB" in response.text


def test_an_attachment_goes_to_the_vault_in_one_click(alice_client, thread):
    alice_client.post(f"/chat/{thread.pk}/attachments/", {"file": docx_file("Osmosis.")})
    attachment = Attachment.objects.get()
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
    assert_only_owner_can_reach(f"/chat/attachments/{attachment.pk}/save/", bob_client, ["post"])
    assert not Document.objects.exists()


@pytest.mark.embedded
def test_a_spoken_question_comes_back_as_text(alice_client, tmp_path):
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


def test_something_that_is_not_audio_gets_a_400(alice_client):
    response = alice_client.post(
        "/api/v1/chat/transcribe", {"file": SimpleUploadedFile("q.wav", b"not audio at all")}
    )
    assert response.status_code == 400
    assert response.json()["detail"] == "That file is not audio we can read."


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
    response = alice_client.post(f"/chat/{thread.pk}/attachments/", {"file": bomb})
    assert response.status_code == 400
    assert "huge.png has too many pixels" in response.text
    assert not Attachment.objects.exists()


def test_an_image_over_the_pixel_limit_is_refused(alice_client, thread):
    wide = SimpleUploadedFile("wide.png", png_header(10_000, 5_000))
    response = alice_client.post(f"/chat/{thread.pk}/attachments/", {"file": wide})
    assert response.status_code == 400
    assert "wide.png has too many pixels; images are limited to 40 megapixels." in response.text


def test_a_small_image_is_attached_for_the_model(alice_client, thread):
    photo = SimpleUploadedFile("cell.png", png_header(8, 8))
    response = alice_client.post(f"/chat/{thread.pk}/attachments/", {"file": photo})
    assert response.status_code == 200
    assert Attachment.objects.get().kind == Attachment.Kind.IMAGE


def test_an_attached_image_is_opened_only_in_the_reading_sandbox(alice_client, thread, monkeypatch):
    """Its header is parsed by the sandbox child: in the web process no image library opens it."""

    def opened_here(*args, **kwargs):
        raise AssertionError("the web process opened an attached image")

    monkeypatch.setattr("PIL.Image.open", opened_here)
    photo = SimpleUploadedFile("cell.png", png_header(8, 8))
    response = alice_client.post(f"/chat/{thread.pk}/attachments/", {"file": photo})
    assert response.status_code == 200
    assert Attachment.objects.get().kind == Attachment.Kind.IMAGE
