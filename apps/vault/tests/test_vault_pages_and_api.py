"""Documents, categories and runs through the pages and the REST API: who sees, manages and
ingests what. Uploads are in test_uploads.py, URL imports in test_url_import.py."""

import re

import pytest
from django.test import Client

from apps.vault.models import Category, Document, IngestRun
from tests.helpers.documents import make_category, make_document
from tests.helpers.isolation import assert_only_owner_can_reach

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_broker")]
API = "/api/v1/vault"
HTMX = {"HTTP_HX_REQUEST": "true"}


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


def test_the_documents_table_says_which_step_a_running_run_is_at(alice_client, alice):
    read = make_document(alice, "read.md", status="processing")
    waiting = make_document(alice, "waiting.md")  # pending: named by the run, not scanned yet
    done = make_document(alice, "done.md", status="done")
    run_id = alice_client.post(
        f"{API}/ingest", {"document_ids": [read.pk, waiting.pk]}, content_type="application/json"
    ).json()["run_id"]
    run = IngestRun.objects.get(pk=run_id)
    run.documents.add(read)
    IngestRun.objects.filter(pk=run_id).update(status="running")
    run.steps.filter(name="scan").update(status="done")
    run.steps.filter(name="extract").update(status="running")

    rows = {
        document.filename: re.search(
            rf'<tr id="document-{document.pk}">.*?<td[^>]*class="status-\w+">(.*?)</td>',
            alice_client.get("/vault/").text,
            re.DOTALL,
        )[1]
        for document in (read, waiting, done)
    }
    assert rows == {"read.md": "processing: extract", "waiting.md": "processing: extract",
                    "done.md": "done"}  # fmt: skip
    # The timeline that shows "extract" asks the table to read again once the run moves on.
    assert alice_client.get(f"/vault/runs/{run_id}/?step=extract", **HTMX).get("HX-Trigger") is None
    assert alice_client.get(f"/vault/runs/{run_id}/?step=scan", **HTMX)["HX-Trigger"] == (
        "vault-run-progress"
    )


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
    refused = alice_client.delete(f"{API}/documents/{document.pk}")
    assert refused.status_code == 403
    assert refused.json() == {"detail": "Only teachers change class documents."}
    assert alice_client.post(f"{API}/documents/{document.pk}/reingest").status_code == 403
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


def test_the_page_lists_documents_with_their_figures(alice, alice_client):
    make_document(
        alice, "zelle.pdf", pages=21, chunk_count=40, status="done", sha256="abcdef12" + "0" * 56
    )
    page = alice_client.get("/vault/").content.decode()
    assert "zelle.pdf" in page and "21" in page and "40" in page and "abcdef12" in page


def test_anonymous_people_are_sent_to_log_in():
    assert Client().get("/vault/").status_code == 302
    assert Client().get(f"{API}/documents").status_code == 401


def test_a_blank_category_name_is_a_clear_error(tess_client):
    page = tess_client.post("/vault/categories/", {"name": "   "}, **HTMX)
    assert page.status_code == 422 and "Give the category a name." in page.content.decode()
    api = tess_client.post(f"{API}/categories", {"name": "   "}, content_type="application/json")
    assert api.status_code == 422 and api.json()["detail"] == "Give the category a name."
    assert not Category.objects.exists()


def test_a_duplicate_category_is_the_same_clear_error_on_the_page_and_in_the_api(tess_client):
    make_category("Chemie")
    page = tess_client.post("/vault/categories/", {"name": " Chemie "}, **HTMX)
    assert page.status_code == 409
    assert "A category named Chemie exists already." in page.content.decode()
    api = tess_client.post(f"{API}/categories", {"name": "Chemie"}, content_type="application/json")
    assert api.status_code == 409
    assert api.json() == {"detail": "A category named Chemie exists already."}
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
