"""A mindmap whose nodes' source changed: the page lists each such node with the passage that
covers it now, and refreshing re-points only those nodes, keeping moves and folds."""

import pytest

from apps.study import stale
from apps.study.mindmaps import stale as mindmaps_stale
from apps.study.mindmaps.models import Mindmap
from apps.study.mindmaps.tree import walk
from apps.study.tests.helpers import CELL_NOTES

pytestmark = pytest.mark.django_db

EDITED = CELL_NOTES.replace("Ribosomen bauen", "Ribosomen synthetisieren")


def sources(mindmap: Mindmap) -> dict[str, int | None]:
    return {node_id: node.get("source") for node_id, node, _, _ in walk(mindmap.tree)}


def test_the_page_lists_each_changed_node_with_the_passage_that_covers_it_now(alice_client, notes):
    mindmap = Mindmap.objects.get(pk=notes.make(alice_client, "mindmaps"))
    assert (
        'id="stale-nodes"'
        not in alice_client.get(f"/study/mindmaps/{mindmap.pk}/").content.decode()
    )
    notes.edit("cells.md", EDITED)
    changed = mindmaps_stale.stale_nodes(mindmap)
    assert changed and len(changed) < sum(1 for source in sources(mindmap).values() if source)

    page = alice_client.get(f"/study/mindmaps/{mindmap.pk}/").content.decode()
    assert 'id="stale-nodes"' in page and "Refresh only these" in page
    assert f"for {len(changed)} nodes:" in page
    assert f'action="/study/stale/mindmap/{mindmap.pk}/refresh/"' in page
    assert page.count('class="stale-item"') == len(changed)
    for _, node in changed:
        assert f"<strong>{node['title']}</strong>" in page
    assert "The passage that answers it now (cells.md" in page
    assert "synthetisieren" in page  # only the new version says so
    for node_id, _ in changed:  # outlined in the map as well
        assert f'mm-changed" data-id="{node_id}"' in page
    assert page.count('mm-changed" data-id') == len(changed)
    canvas = alice_client.get(f"/study/mindmaps/{mindmap.pk}/", HTTP_HX_REQUEST="true")
    assert 'id="stale-nodes"' not in canvas.content.decode()  # htmx redraws the canvas only
    assert canvas.content.decode().count('mm-changed" data-id') == len(changed)
    export = alice_client.get(f"/study/mindmaps/{mindmap.pk}/export.svg").content.decode()
    assert 'mm-changed" data-id' not in export  # a download is study material, not a notice


def test_refreshing_a_mindmap_repoints_only_its_changed_nodes_and_keeps_moves(alice_client, notes):
    mindmap = Mindmap.objects.get(pk=notes.make(alice_client, "mindmaps"))
    mindmap.move_node("r.0", mindmap.layout, 120, -40)
    mindmap.toggle("r.1")
    notes.edit("cells.md", EDITED)
    changed = {node_id for node_id, _ in mindmaps_stale.stale_nodes(mindmap)}
    before = sources(mindmap)

    page = alice_client.post(f"/study/stale/mindmap/{mindmap.pk}/refresh/", follow=True)
    assert f"Refreshed {len(changed)} item" in page.content.decode()
    mindmap.refresh_from_db()
    after = sources(mindmap)
    assert {node_id for node_id in after if after[node_id] != before[node_id]} == changed
    assert stale.live(after[node_id] for node_id in changed) == {after[n] for n in changed}
    assert mindmap.positions[mindmap.layout]["r.0"] == [120, -40]
    assert mindmap.collapsed == ["r.1"]
    assert 'id="stale-nodes"' not in page.content.decode()


def test_bob_can_neither_see_nor_refresh_alices_changed_nodes(alice_client, bob_client, notes):
    mindmap = Mindmap.objects.get(pk=notes.make(alice_client, "mindmaps"))
    notes.edit("cells.md", EDITED)
    changed = [node_id for node_id, _ in mindmaps_stale.stale_nodes(mindmap)]
    assert bob_client.get(f"/study/mindmaps/{mindmap.pk}/").status_code == 404
    assert bob_client.get(f"/api/v1/study/mindmaps/{mindmap.pk}").status_code == 404
    assert bob_client.post(f"/study/stale/mindmap/{mindmap.pk}/refresh/").status_code == 404
    assert bob_client.post(f"/api/v1/study/mindmaps/{mindmap.pk}/refresh").status_code == 404
    assert bob_client.get("/api/v1/study/stale").json()["total"] == 0
    assert [node_id for node_id, _ in mindmaps_stale.stale_nodes(mindmap)] == changed
    assert alice_client.get(f"/api/v1/study/mindmaps/{mindmap.pk}").json()["stale_nodes"] == changed
