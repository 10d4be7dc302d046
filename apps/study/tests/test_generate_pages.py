"""The four "make it from your documents" forms (quiz, workshop, deck, mindmap) share one
template and one way of showing a generator's failure: a clear message, nothing lost."""

import pytest

from apps.study.conftest import make_studied_document, run_worker
from apps.study.models import Deck, Mindmap, Quiz, Workshop

pytestmark = pytest.mark.django_db

PAGES = [
    ("/study/quizzes/", "/study/quizzes/", {"num_questions": "5", "difficulty": "beginner",
                                            "types": ["mcq"]}, Quiz, "Generate quiz"),
    ("/study/workshops/", "/study/workshops/", {"num_lessons": "5"}, Workshop, "Plan workshop"),
    ("/study/decks/", "/study/decks/generate/", {"num_cards": "10"}, Deck, "Generate deck"),
    ("/study/mindmaps/", "/study/mindmaps/generate/", {"title": "Cells"}, Mindmap,
     "Generate mindmap"),
]  # fmt: skip


KINDS = {Quiz: "quiz", Workshop: "workshop", Deck: "deck", Mindmap: "mindmap"}


@pytest.mark.parametrize(("page", "action", "fields", "made", "button"), PAGES)
def test_an_empty_vault_asks_for_documents_first(alice_client, page, action, fields, made, button):
    html = alice_client.get(page).content.decode()
    assert "Add documents first." in html
    assert button not in html


@pytest.mark.parametrize(("page", "action", "fields", "made", "button"), PAGES)
def test_the_form_shows_its_own_fields_and_the_scope(
    alice, alice_client, page, action, fields, made, button
):
    document = make_studied_document(alice)
    html = alice_client.get(page).content.decode()
    assert f'action="{action}"' in html and button in html
    for name in fields:
        assert f'name="{name}"' in html
    assert f'value="{document.pk}"' in html and "Scope: whole vault" in html


@pytest.mark.parametrize(("page", "action", "fields", "made", "button"), PAGES)
def test_a_model_that_is_down_is_shown_on_the_card_and_a_retry_keeps_the_scope(
    alice, alice_client, model, page, action, fields, made, button
):
    kept = make_studied_document(alice, "kept.txt")
    make_studied_document(alice, "other.txt")
    model.fail_with = (500, "boom")
    response = alice_client.post(action, {**fields, "documents": [kept.pk]})
    run_worker()
    item = made.objects.get()
    html = alice_client.get(response["Location"]).content.decode()
    assert response.status_code == 302 and item.status == "failed"
    assert 'role="alert"' in html and "language model" in html and "Try again" in html

    kind = KINDS[made]
    retried = alice_client.post(f"/study/generations/{kind}/{item.pk}/retry/")
    item.refresh_from_db()
    assert retried["Location"] == response["Location"]
    assert item.status == "generating" and not item.error
    assert run_worker() == [(kind, item.pk)]  # queued again, with the scope it was asked with
    scope = getattr(item, "document_ids", None) or item.scope["document_ids"]
    assert scope == [kept.pk]


@pytest.mark.parametrize(("page", "action", "fields", "made", "button"), PAGES)
def test_a_scope_naming_bobs_document_is_refused_on_the_page(
    alice, bob, alice_client, model, page, action, fields, made, button
):
    make_studied_document(alice)
    bobs = make_studied_document(bob, "bobs.txt")
    response = alice_client.post(action, {**fields, "documents": [bobs.pk]})
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    assert not model.chats and not made.objects.exists()
