"""Mindmaps through the pages and the API: drawn from a typed outline, nodes moved, branches
collapsed, every export downloaded, and only the owner reaches them."""

import pytest

from apps.study.mindmaps.tests.examples import full_tree
from apps.study.models import Mindmap
from tests.helpers.isolation import assert_only_owner_can_reach


@pytest.fixture
def alices_map(alice) -> Mindmap:
    return Mindmap.objects.create(owner=alice, title="Zelle", tree=full_tree(levels=3, breadth=3))


@pytest.mark.django_db
def test_alice_draws_a_mindmap_from_an_outline(alice_client, alice):
    response = alice_client.post(
        "/study/mindmaps/new/", {"title": "", "outline": "# Zelle\n- Kern\n  - DNA\n- Membran\n"}
    )
    mindmap = Mindmap.objects.get(owner=alice)
    assert response.status_code == 302 and mindmap.title == "Zelle"
    page = alice_client.get(f"/study/mindmaps/{mindmap.pk}/").content.decode()
    assert 'id="mindmap-canvas"' in page and "<svg" in page and "DNA" in page


@pytest.mark.django_db
def test_an_empty_outline_gets_a_clear_message(alice_client):
    response = alice_client.post("/study/mindmaps/new/", {"outline": "   "})
    assert response.status_code == 400 and "Paste an outline." in response.content.decode()


@pytest.mark.django_db
def test_moving_a_node_is_saved_per_layout_and_reset_forgets_it(alice_client, alices_map):
    url = f"/study/mindmaps/{alices_map.pk}"
    moved = alice_client.post(
        f"{url}/move/", {"node": "r.1", "layout": "lr", "x": "900", "y": "-50.5"}
    )
    assert moved.status_code == 204
    alices_map.refresh_from_db()
    assert alices_map.positions == {"lr": {"r.1": [900.0, -50.5]}}
    assert 'data-id="r.1" data-w' in alice_client.get(f"{url}/").content.decode()
    assert "translate(900 -50.5)" in alice_client.get(f"{url}/").content.decode()

    radial = alice_client.post(f"{url}/layout/", {"layout": "radial"}, HTTP_HX_REQUEST="true")
    assert radial.status_code == 200 and 'data-layout="radial"' in radial.content.decode()
    assert "translate(900 -50.5)" not in radial.content.decode()

    alice_client.post(f"{url}/layout/", {"layout": "lr"})
    alice_client.post(f"{url}/reset/", HTTP_HX_REQUEST="true")
    alices_map.refresh_from_db()
    assert alices_map.positions == {}


@pytest.mark.django_db
@pytest.mark.parametrize(
    "data",
    [
        {"node": "r.99", "layout": "lr", "x": "1", "y": "1"},
        {"node": "r.1", "layout": "sideways", "x": "1", "y": "1"},
        {"node": "r.1", "layout": "lr", "x": "1e9", "y": "1"},
        {"node": "r.1", "layout": "lr", "x": "nan", "y": "1"},
        {"node": "r.1", "layout": "lr"},
    ],
)
def test_a_bad_move_is_refused(alice_client, alices_map, data):
    response = alice_client.post(f"/study/mindmaps/{alices_map.pk}/move/", data)
    assert response.status_code == 400
    alices_map.refresh_from_db()
    assert alices_map.positions == {}


@pytest.mark.django_db
def test_collapsing_a_branch_redraws_without_its_children(alice_client, alices_map):
    response = alice_client.post(
        f"/study/mindmaps/{alices_map.pk}/toggle/", {"node": "r.0"}, HTTP_HX_REQUEST="true"
    )
    page = response.content.decode()
    assert response.status_code == 200 and page.lstrip().startswith('<section id="mindmap-canvas"')
    assert 'data-id="r.0"' in page and 'data-id="r.0.0"' not in page
    alice_client.post(f"/study/mindmaps/{alices_map.pk}/toggle/", {"node": "r.0"})
    alices_map.refresh_from_db()
    assert alices_map.collapsed == []
    bad = alice_client.post(f"/study/mindmaps/{alices_map.pk}/toggle/", {"node": "x"})
    assert bad.status_code == 400


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fmt", "content_type", "magic"),
    [
        ("svg", "image/svg+xml", b"<svg"),
        ("png", "image/png", b"\x89PNG"),
        ("pdf", "application/pdf", b"%PDF"),
        ("md", "text/markdown; charset=utf-8", b"# "),
    ],
)
def test_every_export_downloads(alice_client, alices_map, fmt, content_type, magic):
    response = alice_client.get(f"/study/mindmaps/{alices_map.pk}/export.{fmt}")
    assert response.status_code == 200
    assert response["Content-Type"] == content_type
    assert response.content.startswith(magic)
    assert f'filename="zelle.{fmt}"' in response["Content-Disposition"]


@pytest.mark.django_db
def test_the_api_svg_is_the_svg_on_the_page(alice_client, alices_map):
    alices_map.move_node("r.2", "lr", 10.0, 20.0)
    api = alice_client.get(f"/api/v1/study/mindmaps/{alices_map.pk}.svg")
    assert api.status_code == 200 and api["Content-Type"] == "image/svg+xml"
    assert (
        api.content.decode()
        in alice_client.get(f"/study/mindmaps/{alices_map.pk}/").content.decode()
    )


@pytest.mark.django_db
def test_the_api_creates_a_mindmap_from_a_tree_and_moves_a_node(alice_client):
    created = alice_client.post(
        "/api/v1/study/mindmaps",
        {"tree": {"title": "Root", "children": [{"title": "A"}, {"nope": 1}]}},
        content_type="application/json",
    )
    assert created.status_code == 201
    body = created.json()
    assert body["title"] == "Root" and body["tree"]["children"] == [{"title": "A", "children": []}]
    moved = alice_client.post(
        f"/api/v1/study/mindmaps/{body['id']}/positions",
        {"node": "r.0", "x": 1.5, "y": 2},
        content_type="application/json",
    )
    assert moved.json()["positions"] == {"lr": {"r.0": [1.5, 2.0]}}
    unknown = alice_client.post(
        f"/api/v1/study/mindmaps/{body['id']}/positions",
        {"node": "r.7", "x": 1, "y": 2},
        content_type="application/json",
    )
    assert unknown.status_code == 422 and "r.7" in unknown.json()["detail"]
    patched = alice_client.patch(
        f"/api/v1/study/mindmaps/{body['id']}", {"layout": "tb"}, content_type="application/json"
    )
    assert patched.json()["layout"] == "tb"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body", [{"tree": {"title": ""}}, {"tree": []}, {"tree": "x"}, {"title": 5}]
)
def test_the_api_answers_bad_trees_with_a_json_4xx(alice_client, body):
    response = alice_client.post("/api/v1/study/mindmaps", body, content_type="application/json")
    assert 400 <= response.status_code < 500 and "detail" in response.json()


@pytest.mark.django_db
def test_alice_deletes_her_mindmap(alice_client, alices_map):
    deleted = alice_client.post(f"/study/mindmaps/{alices_map.pk}/delete/", follow=True)
    assert deleted.redirect_chain == [("/study/mindmaps/", 302)]
    assert "Deleted the mindmap “Zelle”." in deleted.content.decode()
    assert not Mindmap.objects.exists()


@pytest.mark.django_db
def test_bob_cannot_reach_alices_mindmap(alices_map, bob_client):
    base = f"/study/mindmaps/{alices_map.pk}"
    for url in [f"{base}/", *(f"{base}/export.{fmt}" for fmt in ("svg", "png", "pdf", "md"))]:
        assert_only_owner_can_reach(url, bob_client, ["get"])
    for url in ["layout", "reset", "toggle", "move", "rename", "delete"]:
        assert_only_owner_can_reach(f"{base}/{url}/", bob_client, ["post"])
    api = f"/api/v1/study/mindmaps/{alices_map.pk}"
    assert_only_owner_can_reach(api, bob_client, ["get", "patch", "delete"])
    assert_only_owner_can_reach(f"{api}.svg", bob_client, ["get"])
    assert bob_client.delete(f"{api}/positions").status_code == 404
    for url, body in [
        (f"{api}/positions", {"node": "r", "x": 1, "y": 1}),
        (f"{api}/collapsed", {"node": "r"}),
    ]:
        assert bob_client.post(url, body, content_type="application/json").status_code == 404
    assert bob_client.get("/api/v1/study/mindmaps").json() == []
    alices_map.refresh_from_db()
    assert alices_map.positions == {} and alices_map.collapsed == []


@pytest.mark.django_db
def test_the_page_says_what_was_left_out(alice_client):
    outline = "# Zelle\n" + "".join(f"- Teil {i}\n" for i in range(9))
    response = alice_client.post("/study/mindmaps/new/", {"outline": outline}, follow=True)
    assert "Left out of the mindmap" in response.content.decode()
