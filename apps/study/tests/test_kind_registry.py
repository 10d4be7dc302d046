"""A new kind of study material is one declaration: a toy glossary, declared here and nowhere
else, is started like the others, made by the worker, shown by the generation card, counted
and refreshed when its sources change, and kept apart from class sets until it has a column
there, without a line of the study root knowing it."""

from dataclasses import replace
from functools import partial

import pytest
from django.db import connection, models
from django.test import RequestFactory
from django.test.utils import isolate_apps
from django.urls import include, path

from apps.accounts.models import User
from apps.study import generator, kinds, retrieval, stale, starting
from apps.study.classsets.models import ClassSet
from apps.study.generated import Generated, GenerationQuerySet
from apps.study.tests.helpers import add_chunks, make_studied_document, run_worker

pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]

TERMS = 2


def glossary_page(request, pk):  # the toy kind's own page, for the card to send a reader to
    raise NotImplementedError


urlpatterns = [
    path("glossaries/<int:pk>/", glossary_page, name="glossary-detail"),
    path("", include("cognivault_site.urls")),
]


@pytest.fixture
def glossary_kind(monkeypatch):
    """The toy model in an app registry of its own and a table that lives for one test (it
    rolls back with the test's transaction), declared as a kind as a feature's kind.py does."""
    with isolate_apps("apps.study"):

        class Glossary(Generated):
            owner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
            title = models.CharField(max_length=200)
            terms = models.JSONField(default=list)  # [{"term": ..., "chunk": pk}]
            created_at = models.DateTimeField(auto_now_add=True)

            objects = GenerationQuerySet.as_manager()

            class Meta:
                app_label = "study"

    editor = connection.schema_editor()
    editor.deferred_sql = []  # as `with` would set; its context refuses to open in a transaction
    editor.create_model(Glossary)

    def fill(glossary) -> None:
        chunks = retrieval.check_scope(glossary.owner, generator.WHOLE_VAULT)[:TERMS]
        terms = [{"term": chunk.text.split()[0], "chunk": chunk.pk} for chunk in chunks]
        glossary.mark_ready(terms=terms)

    def refresh(glossary) -> int:
        alive = stale.live(term["chunk"] for term in glossary.terms)
        now = retrieval.live_chunks(glossary.owner, generator.WHOLE_VAULT).first()
        changed = [term for term in glossary.terms if term["chunk"] not in alive]
        for term in changed:
            term["chunk"] = now.pk
        glossary.save(update_fields=["terms"])
        return len(changed)

    kind = kinds.Kind(
        "glossary",
        Glossary,
        fill=fill,
        making=lambda glossary: "Collecting the terms",
        detail_url="glossary-detail",
        refresh=refresh,
        shortfall=lambda glossary: kinds.Shortfall(len(glossary.terms), 5, "terms", model=False),
        parts="terms",
        cited=lambda user: [
            [term["chunk"]]
            for terms in Glossary.objects.filter(owner=user).values_list("terms", flat=True)
            for term in terms
        ],
    )
    monkeypatch.setitem(kinds.KINDS, kind.name, kind)
    return kind


def start(kind, user, key: str = "key-1"):
    request = RequestFactory().post("/")
    request.user = user
    make = partial(starting.create, kind.model)
    return starting.start(request, kind.name, user, key, make, title="Cell terms")


def test_a_kind_declared_outside_the_root_is_started_made_and_shown(
    alice, alice_client, glossary_kind
):
    make_studied_document(alice)
    glossary = start(glossary_kind, alice)
    assert glossary.status == "generating"
    assert start(glossary_kind, alice) == glossary  # the same request key: the same item

    card = alice_client.get(f"/study/generations/glossary/{glossary.pk}/", HTTP_HX_REQUEST="true")
    assert "Collecting the terms" in card.content.decode()

    assert run_worker() == [("glossary", glossary.pk)]
    glossary.refresh_from_db()
    assert glossary.status == "ready" and len(glossary.terms) == TERMS

    ready = alice_client.get(f"/study/generations/glossary/{glossary.pk}/", HTTP_HX_REQUEST="true")
    assert ready["HX-Refresh"] == "true"
    messages = [str(message) for message in ready.wsgi_request._messages]
    assert any("Only 2 terms of 5" in message for message in messages)
    page = alice_client.get(f"/study/generations/glossary/{glossary.pk}/")
    assert page["Location"] == f"/glossaries/{glossary.pk}/"


def test_a_kind_declared_outside_the_root_is_counted_and_refreshed_when_its_source_changes(
    alice, alice_client, bob_client, glossary_kind
):
    document = make_studied_document(alice)
    glossary = start(glossary_kind, alice)
    run_worker()
    assert stale.counts(alice)["terms"] == 0

    document.sha256 = "a new version"
    document.save(update_fields=["sha256"])
    add_chunks(document, ["Mitochondria are the powerhouse of the cell, says the new version."])
    assert stale.counts(alice) == {**stale.counts(alice), "terms": TERMS}

    refresh = f"/study/stale/glossary/{glossary.pk}/refresh/"
    assert bob_client.post(refresh).status_code == 404
    response = alice_client.post(refresh)
    assert response.status_code == 302 and response["Location"] == f"/glossaries/{glossary.pk}/"
    assert stale.counts(alice)["terms"] == 0


def test_class_sets_keep_a_kind_apart_until_it_is_handed_out_there(
    tess, alice, glossary_kind, monkeypatch
):
    """A class set points at its item by a column of the kind's name (one set per item, and
    what a student may read is one join); a kind not declared `handed_out` is refused, and
    the sets students read are the same as without it."""
    make_studied_document(tess)
    glossary = start(glossary_kind, tess)
    run_worker()
    with pytest.raises(TypeError):
        ClassSet.objects.hand_out(tess, glossary)
    assert not ClassSet.objects.readable_by(alice).exists()

    handed = replace(glossary_kind, handed_out=True)
    monkeypatch.setitem(kinds.KINDS, "glossary", handed)
    assert ClassSet.kind_of(glossary) == "glossary"
