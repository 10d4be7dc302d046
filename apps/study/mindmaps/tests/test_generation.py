"""Mindmaps generated through the shared recipe, against a fake model server."""

import json

import pytest

from apps.study.models import Mindmap
from apps.study.tests.helpers import generate, make_studied_document, run_worker

pytestmark = pytest.mark.django_db


def test_generating_a_mindmap_validates_the_tree_and_maps_sources_to_chunks(
    alice, alice_client, model
):
    document = make_studied_document(alice, chunks=3)
    tree = {
        "title": "Cells",
        "children": [
            {"title": "Mitochondria", "source": 2, "children": [{"title": "ATP", "source": 99}]},
            {"title": ""},
            "junk",
            {"title": "Membrane", "note": "Lipid bilayer", "children": [{"title": "Proteins"}]},
        ],
    }
    model.answer(f"Here you go:\n```json\n{json.dumps(tree)}\n```")
    response = alice_client.post("/study/mindmaps/generate/", {"title": ""})
    run_worker()
    mindmap = Mindmap.objects.get(owner=alice)
    assert response.status_code == 302 and mindmap.status == "ready"
    assert [c["title"] for c in mindmap.tree["children"]] == ["Mitochondria", "Membrane"]
    cited = mindmap.tree["children"][0]["source"]
    assert cited in set(document.chunks.values_list("pk", flat=True))
    assert "source" not in mindmap.tree["children"][0]["children"][0]  # no excerpt 99
    assert "{{" not in model.prompt() and "At most 4 levels" in model.prompt()
    svg = alice_client.get(f"/api/v1/study/mindmaps/{mindmap.pk}.svg").content.decode()
    assert "Mitochondria" in svg and "Lipid bilayer" in svg


def test_a_mindmap_answer_without_a_tree_falls_back_to_the_documents_structure(
    alice, alice_client, model
):
    make_studied_document(alice)
    model.answer({"nodes": ["a", "b"]})
    made = generate(alice_client, "/api/v1/study/mindmaps", {"title": "Cells"})
    assert made["status"] == "ready"
    mindmap = Mindmap.objects.get()
    assert "unusable" in mindmap.model_label and mindmap.tree["title"] == "Cells"
    assert (
        "no model wrote it" in alice_client.get(f"/study/mindmaps/{mindmap.pk}/").content.decode()
    )
    assert mindmap.tree["children"] and all(
        isinstance(child["source"], int) for child in mindmap.tree["children"]
    )


def test_a_mindmap_cut_from_the_text_says_no_model_wrote_it_and_a_models_names_it(
    alice, alice_client, model
):
    make_studied_document(alice)
    model.answer({"title": "Cells", "children": [{"title": "Mitochondria"}]})
    cut = generate(alice_client, "/api/v1/study/mindmaps", {"method": "extractive"})
    written = generate(alice_client, "/api/v1/study/mindmaps", {"method": "model"})

    pages = {
        name: alice_client.get(f"/study/mindmaps/{made['id']}/").content.decode()
        for name, made in [("cut", cut), ("written", written)]
    }

    assert "no model wrote it" in pages["cut"]
    assert "no model wrote it" not in pages["written"]
    assert f"Made by {Mindmap.objects.get(pk=written['id']).model_label}" in pages["written"]


def test_the_title_asked_for_names_the_root(alice, alice_client, model):
    make_studied_document(alice)
    model.answer({"title": "Whatever", "children": [{"title": "A"}]})
    created = generate(alice_client, "/api/v1/study/mindmaps", {"title": "Zellbiologie"})
    assert created["status"] == "ready"
    assert created["tree"]["title"] == "Zellbiologie"
    assert 'Call it "Zellbiologie"' in model.prompt()
