"""The four "make it from your documents" forms (quiz, workshop, deck, mindmap) share one
template and one way of showing a generator's failure: a clear message, nothing lost."""

import pytest
from django.forms.renderers import DjangoTemplates
from django.test.html import parse_html

from apps.study.flashcards.forms import DeckGenerateForm
from apps.study.forms import WIDGETS
from apps.study.mindmaps.forms import MindmapGenerateForm
from apps.study.models import Deck, Mindmap, Quiz, Workshop
from apps.study.quizzes.forms import QuizForm
from apps.study.tests.helpers import make_studied_document, run_worker
from apps.study.workshops.forms import WorkshopForm
from apps.vault.models import Category

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


@pytest.mark.parametrize(("page", "action", "fields", "made", "button"), PAGES)
@pytest.mark.parametrize("field", ["documents", "categories"])
def test_an_id_beyond_the_database_keys_is_refused_on_the_page_not_a_crash(
    alice, alice_client, model, page, action, fields, made, button, field
):
    make_studied_document(alice)
    Category.objects.create(name="Biology")  # so that the categories are drawn, with the error
    response = alice_client.post(action, {**fields, field: [str(2**63)]})
    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    assert not model.chats and not made.objects.exists()


@pytest.mark.parametrize("form", [QuizForm, WorkshopForm, DeckGenerateForm, MindmapGenerateForm])
def test_the_forms_draw_with_jinja2_what_django_s_templates_draw(tess, tess_class, form):
    """The generate forms' widgets are drawn by Jinja2 for speed; Django's widget templates for
    it must draw the same HTML (but for blank lines), field by field, for a teacher (who sees
    every field, with a class to hand it to)."""
    Category.objects.create(name="Biology")
    make_studied_document(tess)
    fast = form(user=tess)
    usual = form(user=tess, renderer=DjangoTemplates())
    usual.initial["token"] = fast.initial["token"]  # a fresh one each time the form is made
    assert fast.renderer is WIDGETS
    for name in fast.fields:
        assert parse_html(str(fast[name])) == parse_html(str(usual[name])), name
    assert "for_class" in fast.fields
