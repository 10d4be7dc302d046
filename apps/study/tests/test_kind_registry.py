"""A new kind of study material is one declaration: a toy glossary, declared here and nowhere
else, is started like the others, made by the worker, shown by the generation card, given a tab
of its own, counted and refreshed when its sources change, and, once declared `handed_out`,
listed in the API schema, handed out to the class, read by a student, listed among the class's
sets and counted in the class's results, without a line of the study root knowing it."""

from dataclasses import replace
from functools import partial
from importlib import import_module

import pytest
from django.db import connection, models
from django.test import RequestFactory
from django.test.utils import isolate_apps
from django.urls import include, path, resolve
from django.utils.module_loading import import_string

from apps.accounts.models import User
from apps.study import generator, kinds, retrieval, stale, starting
from apps.study.classsets.models import ClassSet
from apps.study.generation_job import Generated, GenerationQuerySet
from apps.study.tests.helpers import add_chunks, make_studied_document, run_worker
from tests.helpers.classes import class_of
from tests.helpers.users import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]

TERMS = 2
JSON = "application/json"


def glossary_page(request, pk=None):  # the toy kind's own pages, for links to point at
    raise NotImplementedError


urlpatterns = [
    path("glossaries/", glossary_page, name="glossary-list"),
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
        tab=kinds.Tab("Glossary", "glossary-list", 5),
        refresh=refresh,
        shortfall=lambda glossary: kinds.Shortfall(len(glossary.terms), 5, "terms", model=False),
        parts="terms",
        part="term",
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


def glossary_figures(class_set, student) -> kinds.Figures:
    terms = class_set.item.terms
    return kinds.Figures(student, started=True, detail=f"{len(terms)} terms to learn")


def missed_terms(class_set, students: list) -> list[kinds.Missed]:
    terms = class_set.item.terms
    return [
        kinds.Missed(i + 1, i, term["term"], misses=1, students=len(students), passage=None)
        for i, term in enumerate(terms)
    ]


# How a class's work on a glossary is counted, once it is declared to be handed out.
COUNTED = kinds.HandOut("Terms learnt", glossary_figures, missed=missed_terms)


def openapi(client) -> dict:
    return client.get("/api/v1/openapi.json").json()


def class_set_kinds(client) -> list[list[str]]:
    """The kinds the API schema lists for a class set, sent and answered."""
    schemas = openapi(client)["components"]["schemas"]
    return [schemas[name]["properties"]["kind"]["enum"] for name in ("ClassSetIn", "ClassSetOut")]


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


def test_a_kind_declared_with_a_tab_has_its_tab_in_the_study_hub(alice_client, glossary_kind):
    page = alice_client.get("/study/").content.decode()
    assert '<a href="/glossaries/">Glossary</a>' in page
    assert page.index(">Mindmaps</a>") < page.index(">Glossary</a>")  # its position: 5


def test_each_kinds_pages_and_api_routes_are_mounted_as_it_declares_them(client):
    paths = openapi(client)["paths"]
    for kind in kinds.every():
        if kind.urls:
            prefix, module = kind.urls
            first = import_module(module).urlpatterns[0]
            assert resolve(f"/study/{prefix}{first.pattern}").url_name == first.name
        if kind.router:
            routes = import_string(kind.router).path_operations
            assert {f"/api/v1/study{route}" for route in routes} <= paths.keys()


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
    notice = alice_client.get("/study/").content.decode()
    assert 'id="stale-count"' in notice and f"{TERMS} terms)" in notice

    refresh = f"/study/stale/glossary/{glossary.pk}/refresh/"
    assert bob_client.post(refresh).status_code == 404
    response = alice_client.post(refresh)
    assert response.status_code == 302 and response["Location"] == f"/glossaries/{glossary.pk}/"
    assert stale.counts(alice)["terms"] == 0


def test_a_kind_declared_handed_out_is_in_the_schema_goes_to_the_class_and_leaves_with_it(
    tess, tess_client, alice, alice_client, tess_class, glossary_kind, monkeypatch
):
    """A class set names its item by kind and id, so a kind needs no column there: one not
    declared `handed_out` is refused; declared so, the API lists it, a glossary is handed
    out, a student reads it once it is ready and finds it among the class's sets, and
    deleting it deletes its set."""
    make_studied_document(tess)
    glossary = start(glossary_kind, tess)
    hand_out = {"kind": "glossary", "item_id": glossary.pk, "note": "Learn these"}
    assert not any("glossary" in listed for listed in class_set_kinds(tess_client))
    refused = tess_client.post("/api/v1/study/class-sets", hand_out, content_type=JSON)
    assert refused.status_code == 422
    with pytest.raises(TypeError):
        ClassSet.objects.hand_out(tess, glossary, class_of(tess))

    declare(monkeypatch, replace(glossary_kind, handed_out=COUNTED))
    assert all("glossary" in listed for listed in class_set_kinds(tess_client))
    made = tess_client.post("/api/v1/study/class-sets", hand_out, content_type=JSON)
    assert made.status_code == 201, made.content
    assert made.json()["kind"] == "glossary" and made.json()["url"] == f"/glossaries/{glossary.pk}/"
    handed = ClassSet.objects.get()
    Glossary = glossary_kind.model
    assert not Glossary.objects.readable_by(alice).exists()  # still being made: tess's alone
    assert not ClassSet.objects.readable_by(alice).exists()

    assert run_worker() == [("glossary", glossary.pk)]
    assert list(Glossary.objects.readable_by(alice)) == [glossary]
    theo = make_user("theo", teacher=True)
    assert not Glossary.objects.readable_by(theo).exists()  # another teacher is not the class
    [listed] = ClassSet.objects.readable_by(alice).with_items()
    assert listed == handed == ClassSet.objects.for_item(glossary).get()
    [mine] = alice_client.get("/api/v1/study/class-sets").json()
    assert (mine["kind"], mine["title"], mine["url"]) == (
        "glossary",
        "Cell terms",
        f"/glossaries/{glossary.pk}/",
    )
    assert mine["mine"]["detail"] == f"{TERMS} terms to learn"
    page = alice_client.get("/study/class-sets/").content.decode()
    assert "Cell terms" in page and "Learn these" in page and f"/glossaries/{glossary.pk}/" in page

    glossary.delete()
    assert not ClassSet.objects.exists()


def test_a_kind_declared_handed_out_is_counted_in_the_class_results(
    tess, tess_client, alice, tess_class, glossary_kind, monkeypatch
):
    declare(monkeypatch, replace(glossary_kind, handed_out=COUNTED))
    make_studied_document(tess)
    glossary = start(glossary_kind, tess)
    run_worker()
    glossary.refresh_from_db()
    class_set = ClassSet.objects.hand_out(tess, glossary, class_of(tess))
    terms = [term["term"] for term in glossary.terms]

    page = tess_client.get(f"/study/class-sets/{class_set.pk}/").content.decode()
    assert "<th>Terms learnt</th>" in page and f"{TERMS} terms to learn" in page
    assert "Terms the class misses most" in page and all(term in page for term in terms)
    report = tess_client.get(f"/api/v1/study/class-sets/{class_set.pk}/results").json()
    assert [(row["username"], row["detail"]) for row in report["students"]] == [
        ("alice", f"{TERMS} terms to learn"),
        ("bob", f"{TERMS} terms to learn"),
    ]
    assert [missed["text"] for missed in report["most_missed"]] == terms
