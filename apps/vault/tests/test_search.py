import pytest
from django.test import Client

from apps.accounts.models import ApiToken
from apps.vault.errors import ScopeError
from apps.vault.models import Document
from apps.vault.scope import Scope
from apps.vault.search import live
from apps.vault.search.query import search as search_chunks
from apps.vault.tests.chunks import add_chunks, retire, use_embedded_model
from apps.vault.tokenize import highlight
from tests.helpers.documents import make_category, make_document
from tests.helpers.isolation import assert_only_owner_can_reach

API = "/api/v1/vault/search"
PAGE = "/vault/search/"


@pytest.fixture(autouse=True)
def _embedded(settings):
    use_embedded_model(settings)
    yield
    live.forget()


@pytest.fixture
def vault(tess, alice):
    """A class document in Biology, one in Chemistry, and alice's personal notes."""
    biology, chemistry = make_category("Biology"), make_category("Chemistry")
    cell = make_document(tess, "zelle.pdf", scope=Document.Scope.CLASS, category=biology)
    acids = make_document(tess, "saeuren.pdf", scope=Document.Scope.CLASS, category=chemistry)
    diary = make_document(alice, "alice-notes.txt")
    add_chunks(cell, ["Die Mitose ist die Teilung des Zellkerns.", "Ribosomen bauen Proteine."])
    add_chunks(acids, ["Säuren geben Protonen ab; der pH-Wert sinkt."])
    add_chunks(diary, ["Mein Passwort-Hinweis: Codewort Zebra-42 für die Mitose-Klausur."])
    return {
        "biology": biology,
        "chemistry": chemistry,
        "cell": cell,
        "acids": acids,
        "diary": diary,
    }


def filenames(hits) -> list[str]:
    return [hit.filename if hasattr(hit, "filename") else hit["filename"] for hit in hits]


def test_a_search_returns_hits_with_their_source_and_both_ranks(vault, alice):
    hits = search_chunks(alice, "Mitose", k=7)
    assert hits[0].filename in {"zelle.pdf", "alice-notes.txt"}
    cell = next(hit for hit in hits if hit.filename == "zelle.pdf")
    assert cell.text == "Die Mitose ist die Teilung des Zellkerns."
    assert (cell.page, cell.section, cell.document_id) == (1, "Part 1", vault["cell"].pk)
    assert cell.sparse_rank is not None and cell.dense_rank is not None
    assert cell.score == pytest.approx(1 / (60 + cell.dense_rank) + 1 / (60 + cell.sparse_rank))


def test_bob_never_sees_alices_personal_chunks(vault, alice, bob):
    assert "alice-notes.txt" in filenames(search_chunks(alice, "Zebra-42 Mitose", k=15))
    assert "alice-notes.txt" not in filenames(search_chunks(bob, "Zebra-42 Mitose", k=15))
    assert "alice-notes.txt" not in filenames(search_chunks(bob, "Passwort Codewort", k=50))


def test_teachers_do_not_see_students_personal_chunks(vault, tess):
    assert "alice-notes.txt" not in filenames(search_chunks(tess, "Zebra-42", k=50))


def test_a_scope_of_categories_or_documents_limits_both_retrievers(vault, alice):
    chemistry = search_chunks(alice, "Mitose", scope=Scope([vault["chemistry"].pk]), k=15)
    assert set(filenames(chemistry)) <= {"saeuren.pdf"}
    diary = search_chunks(alice, "Mitose", scope=Scope(document_ids=[vault["diary"].pk]))
    assert filenames(diary) == ["alice-notes.txt"]
    assert diary[0].sparse_rank == 1
    either = search_chunks(
        alice, "Mitose", scope=Scope([vault["chemistry"].pk], [vault["diary"].pk])
    )
    assert "zelle.pdf" not in filenames(either) and "alice-notes.txt" in filenames(either)


def test_someone_elses_document_in_the_scope_is_refused_like_a_missing_one(vault, bob):
    with pytest.raises(ScopeError):
        search_chunks(bob, "Mitose", scope=Scope(document_ids=[vault["diary"].pk]))
    with pytest.raises(ScopeError):
        search_chunks(bob, "Mitose", scope=Scope(document_ids=[987654]))


def test_unfinished_documents_are_not_searched(vault, alice):
    retire(vault["cell"])
    assert "zelle.pdf" not in filenames(search_chunks(alice, "Ribosomen Proteine", k=15))


def test_an_empty_vault_or_query_finds_nothing(alice):
    assert search_chunks(alice, "Mitose") == []
    assert search_chunks(alice, "   ") == []


# --- API ------------------------------------------------------------------------------------------


def test_the_api_returns_hits_with_every_field(vault, alice_client):
    response = alice_client.get(API, {"q": "Ribosomen", "k": 3})
    assert response.status_code == 200
    hits = response.json()
    assert len(hits) <= 3
    assert set(hits[0]) == {
        "chunk_id", "document_id", "filename", "page", "section", "text", "score",
        "dense_rank", "sparse_rank",
    }  # fmt: skip
    assert hits[0]["filename"] == "zelle.pdf" and hits[0]["sparse_rank"] == 1


def test_the_api_takes_repeated_category_and_document_filters(vault, alice_client):
    params = f"?q=Mitose&category={vault['chemistry'].pk}&document={vault['diary'].pk}"
    assert set(filenames(alice_client.get(API + params).json())) <= {
        "saeuren.pdf", "alice-notes.txt"
    }  # fmt: skip


def test_the_api_works_with_a_bearer_token(vault, bob):
    _, token = ApiToken.objects.issue(bob, "cli")
    response = Client().get(API, {"q": "Mitose"}, HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 200
    assert "zelle.pdf" in filenames(response.json())
    assert "alice-notes.txt" not in filenames(response.json())


def test_bad_api_input_gets_a_clear_4xx(vault, alice_client, client):
    assert client.get(API, {"q": "Mitose"}).status_code == 401
    for params in ({}, {"q": ""}, {"q": "x" * 1001}, {"q": "a", "k": 0}, {"q": "a", "k": "x"}):
        response = alice_client.get(API, params)
        assert response.status_code in (400, 422), params
        assert "detail" in response.json()
    blank = alice_client.get(API, {"q": "   "})
    assert blank.status_code == 400 and blank.json() == {"detail": "Enter something to search for."}
    missing = alice_client.get(API, {"q": "a", "category": 424242})
    assert missing.status_code == 404 and missing.json() == {"detail": "No such category: 424242."}


def test_bob_cannot_scope_a_search_to_alices_document(vault, bob_client):
    assert_only_owner_can_reach(f"{API}?q=Mitose&document={vault['diary'].pk}", bob_client, ["get"])
    response = bob_client.get(API, {"q": "Mitose", "document": vault["diary"].pk})
    assert response.json() == {"detail": f"No such document: {vault['diary'].pk}."}


# --- Page -----------------------------------------------------------------------------------------


def test_the_search_page_shows_hits_with_highlights_and_ranks(vault, alice_client):
    response = alice_client.get(PAGE, {"q": "Mitose"})
    assert response.status_code == 200
    html = response.content.decode()
    assert '<section id="search-results"' in html
    assert "<mark>Mitose</mark>" in html
    assert "zelle.pdf" in html and "page 1" in html
    assert "meaning #" in html and "keywords #1" in html


def test_a_hit_shows_its_section_above_its_text_not_the_chunks_section_line(
    vault, alice, alice_client
):
    notes = make_document(alice, "notizen.md")
    add_chunks(notes, ["[Section: Zelle > Kern]\nDer Zellkern enthält die Chromosomen."])

    html = alice_client.get(PAGE, {"q": "Chromosomen"}).content.decode()

    assert "[Section:" not in html
    assert '<p class="search-text">Der Zellkern enthält die <mark>Chromosomen</mark>.' in html

    # Words any sentence has ("die", "the") are not marked beside the ones looked for.
    html = alice_client.get(PAGE, {"q": "die Chromosomen"}).content.decode()
    assert '<p class="search-text">Der Zellkern enthält die <mark>Chromosomen</mark>.' in html


def test_an_htmx_search_renders_only_the_results_partial(vault, alice_client):
    response = alice_client.get(PAGE, {"q": "Ribosomen"}, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert html.lstrip().startswith('<section id="search-results"')
    assert "<mark>Ribosomen</mark>" in html and "<form" not in html


def test_the_page_offers_only_documents_the_user_can_see(vault, bob_client):
    html = bob_client.get(PAGE).content.decode()
    assert "zelle.pdf" in html and "alice-notes.txt" not in html
    foreign = bob_client.get(PAGE, {"q": "Mitose", "document": vault["diary"].pk})
    missing = bob_client.get(PAGE, {"q": "Mitose", "document": 987654})
    assert foreign.status_code == missing.status_code == 200
    assert "alice-notes.txt" not in foreign.content.decode()
    assert "Select a valid choice" in foreign.content.decode()


@pytest.mark.parametrize("field", ["document", "category"])
@pytest.mark.parametrize("value", [str(2**63), "9" * 25])
def test_an_id_beyond_the_database_keys_on_the_page_is_an_invalid_choice(
    vault, alice_client, field, value
):
    response = alice_client.get(PAGE, {"q": "Mitose", field: value})
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()


def test_search_text_is_escaped(tess, alice_client):
    document = make_document(tess, "evil.html", scope=Document.Scope.CLASS)
    add_chunks(document, ["<script>alert('Mitose')</script> Mitose"])
    html = alice_client.get(PAGE, {"q": "Mitose"}).content.decode()
    assert "<script>alert" not in html and "&lt;script&gt;" in html


def test_the_search_page_needs_a_login(client):
    response = client.get(PAGE)
    assert response.status_code == 302 and "/accounts/login" in response["Location"]


def test_highlight_marks_words_compounds_and_identifiers_but_nothing_else():
    parts = highlight(
        "Die Prüfungsordnung, § 3 und ISBN 978-0-553-41802-6.", "prüfung §3 978-0-553-41802-6"
    )
    assert [text for text, marked in parts if marked] == [
        "Prüfungsordnung", "§ 3", "978-0-553-41802-6",
    ]  # fmt: skip
    assert (
        "".join(text for text, _ in parts) == "Die Prüfungsordnung, § 3 und ISBN 978-0-553-41802-6."
    )
