"""Office files are zips, and a zip's index alone can be a bomb: the web process only sniffs an
upload's first bytes, and the zip guard refuses a hostile archive in the reading sandbox, where
the document is marked failed with the reason and nothing of it is stored."""

import os
import struct
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from apps.vault.models import Chunk, Document, Extraction, IngestRun
from apps.vault.readers import looks_like
from apps.vault.readers.common import ExtractionError
from apps.vault.readers.zipguard import open_zip
from apps.vault.tests import files
from apps.vault.tests.helpers import drive

pytestmark = pytest.mark.django_db
API = "/api/v1/vault"


def index_claiming_millions(path):
    """A real .docx whose end-of-central-directory record claims 65535 entries in a 4 GB index:
    opening its zip index is what must never happen in the web process."""
    data = bytearray(files.docx_file(path).read_bytes())
    end = data.rindex(b"PK\x05\x06")
    struct.pack_into("<HHI", data, end + 8, 0xFFFF, 0xFFFF, 0xFFFFFFF0)
    path.write_bytes(bytes(data))
    return path


def too_many_parts(path):
    with zipfile.ZipFile(path, "w") as archive:
        for number in range(10_001):
            archive.writestr(f"customXml/item{number}.xml", b"")
    return path


def zip_bomb(path):
    source = files.docx_file(path.with_name("source.docx"))
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(path, "w") as out:
        for entry in original.infolist():
            out.writestr(entry, original.read(entry), zipfile.ZIP_DEFLATED)
        padding = b"<a>" + b" " * (8 * 1024 * 1024) + b"</a>"
        out.writestr("customXml/padding.xml", padding, zipfile.ZIP_DEFLATED)
    return path


def no_word_document(path):
    return files.zip_with(path, {"hello.txt": b"hi"})


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (index_claiming_millions, "The DOCX file is not a valid zip file."),
        (too_many_parts, "The DOCX file holds too many files (10001): refused."),
        (zip_bomb, "The DOCX file is compressed suspiciously well (a zip bomb?): refused."),
        (no_word_document, "This zip file is not a DOCX document."),
    ],
)
def test_a_hostile_docx_is_stored_as_pending_then_fails_in_the_sandbox_with_its_reason(
    alice_client, model, tmp_path, make, reason
):
    hostile = make(tmp_path / "hausaufgabe.docx")
    notes = files.markdown_file(tmp_path / "notes.md")
    for path in (hostile, notes):
        response = alice_client.post(
            f"{API}/documents", {"file": SimpleUploadedFile(path.name, path.read_bytes())}
        )
        assert response.status_code == 201
        assert response.json()["status"] == "pending"

    started = alice_client.post(f"{API}/ingest", content_type="application/json")
    assert started.status_code == 202
    assert drive(IngestRun.objects.get(pk=started.json()["run_id"])).status == "done"

    bad = Document.objects.get(filename="hausaufgabe.docx")
    assert bad.status == "failed" and bad.error == reason
    assert not Chunk.objects.filter(document=bad).exists()
    assert not Extraction.objects.filter(document=bad).exists()
    assert Document.objects.get(filename="notes.md").status == "done"  # nothing else is lost
    assert reason in alice_client.get("/vault/").content.decode()


def test_the_web_process_never_opens_an_uploaded_office_zip(alice_client, tmp_path, monkeypatch):
    path = files.docx_file(tmp_path / "zelle.docx")  # made before the zip module is barred

    def opened_here(*args, **kwargs):
        raise AssertionError("the web process opened an uploaded zip")

    monkeypatch.setattr(zipfile, "ZipFile", opened_here)
    response = alice_client.post(
        f"{API}/documents", {"file": SimpleUploadedFile(path.name, path.read_bytes())}
    )
    assert response.status_code == 201
    assert Document.objects.get().status == "pending"


@pytest.mark.parametrize("fmt", ["docx", "pptx", "xlsx"])
def test_any_zip_passes_the_upload_sniff_of_an_office_format(tmp_path, fmt):
    assert looks_like(fmt, no_word_document(tmp_path / f"fake.{fmt}").read_bytes()[:16])
    assert not looks_like(fmt, b"%PDF-1.7")


@pytest.mark.parametrize(
    ("fmt", "head", "expected"),
    [
        ("pdf", b"%PDF-1.7\n", True),
        ("pdf", b"GIF89a", False),
        ("docx", b"%PDF-1.7", False),
        ("txt", b"plain text", True),
        ("txt", b"MZ\x90\x00\x03\x00", False),
        ("html", b"<!doctype html>", True),
    ],
)
def test_magic_bytes_must_match_the_extension(fmt, head, expected):
    assert looks_like(fmt, head) is expected


def test_a_refused_zip_is_closed_and_its_limits_are_the_callers(tmp_path):
    """The guard serves Office files and other tools' packages, each with its own limits; what
    it refuses it does not leave open (a sandbox child reads many files in turn)."""
    package = files.zip_with(tmp_path / "bank.zip", {"a.xml": b"<a/>", "b.xml": b"<b/>"})

    def open_on_it() -> int:
        return sum(
            os.path.realpath(f"/proc/self/fd/{fd}") == str(package)
            for fd in os.listdir("/proc/self/fd")
        )

    with pytest.raises(
        ExtractionError, match=r"^The QTI package holds too many files \(2\)"
    ) as refused:
        open_zip(package, "QTI package", max_entries=1)
    # Closed by the guard, not by the collector: the error's traceback still holds its frame.
    assert refused.tb is not None and open_on_it() == 0
    with open_zip(package, "QTI package", max_entries=2) as archive:
        assert archive.namelist() == ["a.xml", "b.xml"]
        assert open_on_it() == 1
