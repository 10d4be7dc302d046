"""A new kind of study material is one declaration: a toy glossary, declared here and nowhere
else, is started like the others, made by the worker, shown by the generation card, counted
and refreshed when its sources change, and, once declared `handed_out`, handed out to the
class, read by a student and listed among the class's sets, without a line of the study root
knowing it."""

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
from apps.study.generation_job import Generated, GenerationQuerySet
from apps.study.tests.helpers import add_chunks, make_studied_document, run_worker
from tests.helpers.users import make_user

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
    declare(monkeypatch, kind)
    return kind


def declare(monkeypatch, kind) -> None:
    """Register `kind` as a feature's kind.py does, for this test only."""
    monkeypatch.setitem(kinds.KINDS, kind.name, kind)  # the registry as it was, after the test
    kinds.register(kind)


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


def test_a_kind_declared_handed_out_goes_to_the_class_and_leaves_with_its_item(
    tess, alice, alice_client, glossary_kind, monkeypatch
):
    """A class set names its item by kind and id, so a kind needs no column there: one not
    declared `handed_out` is refused; declared so, a glossary is handed out, a student reads
    it once it is ready and finds it among the class's sets, and deleting it deletes its set."""
    make_studied_document(tess)
    glossary = start(glossary_kind, tess)
    with pytest.raises(TypeError):
        ClassSet.objects.hand_out(tess, glossary)

    declare(monkeypatch, replace(glossary_kind, handed_out=True))
    handed = ClassSet.objects.hand_out(tess, glossary, note="Learn these")
    Glossary = glossary_kind.model
    assert not Glossary.objects.readable_by(alice).exists()  # still being made: tess's alone
    assert not ClassSet.objects.readable_by(alice).exists()

    assert run_worker() == [("glossary", glossary.pk)]
    assert list(Glossary.objects.readable_by(alice)) == [glossary]
    theo = make_user("theo", teacher=True)
    assert not Glossary.objects.readable_by(theo).exists()  # another teacher is not the class
    [listed] = ClassSet.objects.readable_by(alice).with_items()
    assert listed == handed == ClassSet.objects.for_item(glossary).get()
    assert listed.item == glossary and listed.study_url() == f"/glossaries/{glossary.pk}/"
    page = alice_client.get("/study/class-sets/").content.decode()
    assert "Cell terms" in page and "Learn these" in page and f"/glossaries/{glossary.pk}/" in page

    glossary.delete()
    assert not ClassSet.objects.exists()
