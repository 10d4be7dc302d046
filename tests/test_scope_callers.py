"""Search (page and API), the chat's tools and the study generators read a scope the same way:
"category Chemistry + a document outside it" draws from both."""

import json

import pytest

from apps.chat.tools import Toolbox
from apps.study import retrieval
from apps.vault.models import Document
from apps.vault.scope import Scope
from apps.vault.search import live
from apps.vault.search.query import search as search_chunks
from apps.vault.tests.chunks import add_chunks, use_embedded_model
from tests.helpers.documents import make_category, make_document

pytestmark = pytest.mark.django_db

BOTH = {"acids.pdf", "loose.pdf"}


@pytest.fixture
def scope(settings, tess):
    use_embedded_model(settings)
    chemistry = make_category("Chemistry")
    klass = {"scope": Document.Scope.CLASS}
    acids = make_document(tess, "acids.pdf", category=chemistry, sha256="a" * 64, **klass)
    loose = make_document(tess, "loose.pdf", sha256="b" * 64, **klass)
    cell = make_document(tess, "cell.pdf", sha256="c" * 64, **klass)
    add_chunks(acids, ["Enzyme beschleunigen Reaktionen in sauren Lösungen."])
    add_chunks(loose, ["Enzyme arbeiten am besten bei ihrer optimalen Temperatur."])
    add_chunks(cell, ["Enzyme in der Zelle falten Proteine."])
    yield Scope([chemistry.pk], [loose.pk])
    live.forget()


def test_search_finds_both(scope, alice):
    assert {hit.filename for hit in search_chunks(alice, "Enzyme", k=10, scope=scope)} == BOTH


def test_the_search_api_and_page_find_both(scope, alice_client):
    [category], [document] = scope.category_ids, scope.document_ids
    params = {"q": "Enzyme", "k": 10, "category": category, "document": document}
    hits = alice_client.get("/api/v1/vault/search", params).json()
    assert {hit["filename"] for hit in hits} == BOTH
    results = alice_client.get("/vault/search/", params, HTTP_HX_REQUEST="true").content.decode()
    assert "acids.pdf" in results and "loose.pdf" in results and "cell.pdf" not in results


def test_the_chat_tools_list_and_search_both(scope, alice):
    toolbox = Toolbox(alice, scope)
    listed = json.loads(toolbox.run("list_documents", {}))["documents"]
    assert {document["filename"] for document in listed} == BOTH
    found = json.loads(toolbox.run("search_knowledge_base", {"query": "Enzyme"}))["results"]
    assert {result["document"] for result in found} == BOTH


def test_the_study_generators_draw_from_both(scope, alice):
    sources = retrieval.retrieve(alice, scope)
    assert {source.filename for source in sources} == BOTH
