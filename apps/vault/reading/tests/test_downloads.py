"""The original file: a person's own documents, and class documents while the teacher lets
students download them (the default)."""

import pytest

from apps.vault.models import Document
from apps.vault.tests import files
from apps.vault.tests.helpers import upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def handout(tess, tmp_path):
    return upload(tess, files.docx_file(tmp_path / "Zellen.docx"), scope=Document.Scope.CLASS)


def file_url(document) -> str:
    return f"/api/v1/vault/documents/{document.pk}/file"


def test_a_student_downloads_a_class_document_as_it_was_uploaded(handout, alice_client):
    response = alice_client.get(file_url(handout))

    assert response.status_code == 200
    assert b"".join(response.streaming_content) == handout.path.read_bytes()
    assert response["Content-Disposition"] == 'attachment; filename="Zellen.docx"'
    reader = alice_client.get(f"/vault/documents/{handout.pk}/").text
    assert "Download the original" in reader


def test_a_teacher_keeps_a_class_document_in_the_app(handout, tess_client, alice_client):
    kept = tess_client.post(f"/vault/documents/{handout.pk}/download/", {"allowed": "false"})

    assert kept.status_code == 302
    refused = alice_client.get(file_url(handout))
    assert refused.status_code == 403 and "read it there" in refused.json()["detail"]
    assert "Download the original" not in alice_client.get(f"/vault/documents/{handout.pk}/").text
    assert tess_client.get(file_url(handout)).status_code == 200
    tess_client.post(f"/vault/documents/{handout.pk}/download/", {"allowed": "true"})
    assert alice_client.get(file_url(handout)).status_code == 200


def test_a_student_cannot_change_who_downloads_a_class_document(handout, alice_client):
    response = alice_client.post(f"/vault/documents/{handout.pk}/download/", {"allowed": "false"})

    assert response.status_code == 403
    assert Document.objects.get(pk=handout.pk).downloadable


def test_a_student_downloads_their_own_documents(alice, alice_client, tmp_path):
    mine = upload(alice, files.markdown_file(tmp_path / "notes.md"))

    response = alice_client.get(file_url(mine))

    assert response.status_code == 200 and response["Content-Type"] == "text/markdown"
