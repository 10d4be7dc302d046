"""The page and the API change a mindmap through one rule each: only its own nodes and the
three layouts, within the canvas; and a new mindmap is recorded once."""

import pytest

from apps.accounts.api import NOT_BLANK
from apps.progress.models import Event
from apps.study.models import Mindmap
from apps.study.tests.helpers import make_studied_document

pytestmark = pytest.mark.django_db

TREE = {"title": "Zelle", "children": [{"title": "Kern", "children": [{"title": "DNA"}]}]}


@pytest.fixture
def alices_map(alice) -> Mindmap:
    mindmap, _badges = Mindmap.objects.create_from(alice, TREE)
    return mindmap


def test_a_node_that_is_not_there_is_refused_by_page_and_api(alices_map, alice_client):
    page = alice_client.post(f"/study/mindmaps/{alices_map.pk}/toggle/", {"node": "r.9"})
    moved = alice_client.post(
        f"/study/mindmaps/{alices_map.pk}/move/", {"node": "r.9", "layout": "lr", "x": 1, "y": 1}
    )
    api = alice_client.post(
        f"/api/v1/study/mindmaps/{alices_map.pk}/collapsed",
        {"node": "r.9"},
        content_type="application/json",
    )

    message = "No node 'r.9' in this mindmap."
    assert page.status_code == 400 and "No node &#x27;r.9&#x27;" in page.content.decode()
    assert moved.status_code == 400 and moved.content.decode() == message
    assert api.status_code == 422 and api.json() == {"detail": message}
    alices_map.refresh_from_db()
    assert alices_map.collapsed == [] and alices_map.positions == {}


def test_a_node_dragged_off_the_canvas_is_refused_by_page_and_api(alices_map, alice_client):
    page = alice_client.post(
        f"/study/mindmaps/{alices_map.pk}/move/",
        {"node": "r.0", "layout": "lr", "x": "2e5", "y": 0},
    )
    api = alice_client.post(
        f"/api/v1/study/mindmaps/{alices_map.pk}/positions",
        {"node": "r.0", "x": 2e5, "y": 0},
        content_type="application/json",
    )

    message = "A node stays within ±100,000 of the centre."
    assert page.status_code == 400 and page.content.decode() == message
    assert api.status_code == 422 and api.json() == {"detail": message}
    alices_map.refresh_from_db()
    assert alices_map.positions == {}


def test_an_unknown_layout_is_refused_by_page_and_api(alices_map, alice_client):
    page = alice_client.post(f"/study/mindmaps/{alices_map.pk}/layout/", {"layout": "sideways"})
    api = alice_client.patch(
        f"/api/v1/study/mindmaps/{alices_map.pk}",
        {"layout": "sideways"},
        content_type="application/json",
    )

    message = "Choose a layout: lr, tb, radial."
    assert page.status_code == 400 and message in page.content.decode()
    assert api.status_code == 422 and api.json() == {"detail": message}
    alices_map.refresh_from_db()
    assert alices_map.layout == "lr"


def test_an_empty_name_is_refused_by_page_and_api(alices_map, alice_client):
    page = alice_client.post(
        f"/study/mindmaps/{alices_map.pk}/rename/", {"title": " "}, follow=True
    )
    api = alice_client.patch(
        f"/api/v1/study/mindmaps/{alices_map.pk}", {"title": " "}, content_type="application/json"
    )

    assert "Give the mindmap a name." in page.content.decode()
    assert api.status_code == 422 and api.json() == {"detail": "Give the mindmap a name."}
    alices_map.refresh_from_db()
    assert alices_map.title == "Zelle"


@pytest.mark.parametrize("body", [{"title": "  "}, {"title": "", "tree": TREE}])
def test_a_blank_title_is_refused_when_a_mindmap_is_made_as_when_it_is_renamed(
    alice, alice_client, model, body
):
    make_studied_document(alice)
    response = alice_client.post("/api/v1/study/mindmaps", body, content_type="application/json")

    assert response.status_code == 422
    assert response.json() == {"detail": "Give the mindmap a name."}
    assert not Mindmap.objects.exists()


def test_the_schema_says_a_mindmaps_title_is_not_blank_when_made_or_renamed(client):
    schemas = client.get("/api/v1/openapi.json").json()["components"]["schemas"]
    for body in ("MindmapIn", "MindmapPatch"):
        [title, _none] = schemas[body]["properties"]["title"]["anyOf"]
        assert title["pattern"] == NOT_BLANK


def test_a_mindmap_made_on_the_page_or_through_the_api_is_recorded_once(alice, alice_client):
    alice_client.post("/study/mindmaps/new/", {"outline": "# Zelle\n- Kern\n"})
    alice_client.post("/api/v1/study/mindmaps", {"tree": TREE}, content_type="application/json")

    assert Mindmap.objects.filter(owner=alice).count() == 2
    assert Event.objects.filter(user=alice, kind=Event.Kind.MINDMAP).count() == 2
