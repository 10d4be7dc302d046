"""The Scope: chosen categories OR chosen documents, always within what the asker may see."""

import pytest

from apps.vault.errors import ScopeError
from apps.vault.models import Document
from apps.vault.scope import WHOLE_VAULT, Scope
from tests.helpers.documents import make_category, make_document

pytestmark = pytest.mark.django_db


@pytest.fixture
def vault(tess, alice, bob):
    """Class documents in Biology and Chemistry and one without a category; alice's and bob's
    personal notes (alice's in Biology)."""
    biology, chemistry = make_category("Biology"), make_category("Chemistry")
    klass = {"scope": Document.Scope.CLASS}
    return {
        "biology": biology,
        "chemistry": chemistry,
        "cell": make_document(tess, "cell.pdf", category=biology, **klass),
        "acids": make_document(tess, "acids.pdf", category=chemistry, **klass),
        "loose": make_document(tess, "loose.pdf", **klass),
        "alices": make_document(alice, "alice.txt", category=biology),
        "bobs": make_document(bob, "bob.txt"),
    }


def names(documents) -> set[str]:
    return {document.filename for document in documents}


def test_nothing_chosen_is_everything_the_asker_may_see(vault, alice, tess):
    assert WHOLE_VAULT.is_whole_vault
    assert names(WHOLE_VAULT.documents(alice)) == {
        "cell.pdf",
        "acids.pdf",
        "loose.pdf",
        "alice.txt",
    }
    # A teacher sees the class documents, never a student's personal ones.
    assert names(WHOLE_VAULT.documents(tess)) == {"cell.pdf", "acids.pdf", "loose.pdf"}


def test_categories_only_give_their_documents_the_asker_may_see(vault, alice, bob):
    biology = Scope([vault["biology"].pk])
    assert names(biology.documents(alice)) == {"cell.pdf", "alice.txt"}
    assert names(biology.documents(bob)) == {"cell.pdf"}


def test_documents_only_give_just_those(vault, alice):
    scope = Scope(document_ids=[vault["acids"].pk, vault["loose"].pk])
    assert names(scope.documents(alice)) == {"acids.pdf", "loose.pdf"}


def test_categories_and_documents_overlapping_are_joined_not_intersected(vault, alice):
    scope = Scope([vault["biology"].pk], [vault["cell"].pk])
    assert names(scope.documents(alice)) == {"cell.pdf", "alice.txt"}


def test_categories_and_documents_disjoint_give_both(vault, alice):
    # Category Chemistry + a document outside it: both, where an AND would give nothing.
    scope = Scope([vault["chemistry"].pk], [vault["loose"].pk])
    assert names(scope.documents(alice)) == {"acids.pdf", "loose.pdf"}


def test_a_category_that_does_not_exist_is_refused(vault, alice):
    with pytest.raises(ScopeError, match="No such category: 424242."):
        Scope([vault["biology"].pk, 424242]).documents(alice)


def test_another_persons_document_is_refused_like_a_missing_one(vault, alice, tess):
    with pytest.raises(ScopeError, match=f"No such document: {vault['bobs'].pk}."):
        Scope(document_ids=[vault["bobs"].pk]).documents(alice)
    with pytest.raises(ScopeError, match=f"No such document: {vault['alices'].pk}."):
        Scope(document_ids=[vault["alices"].pk]).documents(tess)
    with pytest.raises(ScopeError, match="No such document: 987654."):
        Scope(document_ids=[987654]).documents(alice)


def test_only_ingested_documents_are_searchable(vault, alice):
    Document.objects.filter(pk=vault["cell"].pk).update(status=Document.Status.DONE)
    assert names(Scope([vault["biology"].pk]).searchable(alice)) == {"cell.pdf"}


@pytest.mark.parametrize(
    ("categories", "documents", "expected"),
    [
        (None, "", Scope()),
        ("3", ["5", " ", "4", "5"], Scope([3], [4, 5])),
        ([3, "3"], 7, Scope([3], [7])),
    ],
)
def test_input_from_forms_the_api_and_the_socket_becomes_one_scope(categories, documents, expected):
    assert Scope.from_input(categories, documents) == expected


@pytest.mark.parametrize(
    ("documents", "said"),
    [
        (["abc"], "by their ids"),
        ([True], "by their ids"),
        ([2.5], "by their ids"),
        ([{"id": 1}], "by their ids"),
        ([0], "No such document: 0."),
        ([10**25], f"No such document: {10**25}."),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(documents, said):
    with pytest.raises(ScopeError, match=said):
        Scope.from_input([], documents)


def test_a_scope_round_trips_through_its_stored_form():
    scope = Scope([2, 1], [9])
    assert scope.as_dict() == {"category_ids": [1, 2], "document_ids": [9]}
    assert Scope(**scope.as_dict()) == scope
    assert Scope(**{}) == WHOLE_VAULT
