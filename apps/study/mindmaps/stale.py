"""A mindmap's nodes whose source changed, and refreshing only those (apps/study/stale.py)."""

from apps.study.extractive.structure import note_for
from apps.study.mindmaps.models import Mindmap
from apps.study.mindmaps.tree import walk
from apps.study.stale import live, replacement, scope_for


def stale_nodes(mindmap: Mindmap) -> list[tuple[str, dict]]:
    nodes = [(node_id, node) for node_id, node, _, _ in walk(mindmap.tree)]
    alive = live(node.get("source") for _, node in nodes)
    return [
        (node_id, node)
        for node_id, node in nodes
        if isinstance(node.get("source"), int) and node["source"] not in alive
    ]


def node_text(node: dict) -> str:
    return node["title"]


def refresh_mindmap(mindmap: Mindmap) -> int:
    """Each stale node cites the passage that answers its title now; its note follows."""
    scope = scope_for(mindmap)
    refreshed = 0
    tree = mindmap.tree
    for _, node in stale_nodes(mindmap):
        passage = replacement(mindmap.owner, node_text(node), scope)
        if passage is None:
            continue
        node["source"] = passage.chunk_id
        if node.get("note"):
            node["note"] = note_for(passage.text) or node["note"]
        refreshed += 1
    if refreshed:
        mindmap.tree = tree
        mindmap.save(update_fields=["tree", "updated_at"])
    return refreshed


def cited(user) -> list[list[int]]:
    """The chunk each node of the user's mindmaps cites, for the stale counts."""
    trees = Mindmap.objects.filter(owner=user).values_list("tree", flat=True)
    return [
        [node["source"]]
        for tree in trees
        for _, node, _, _ in walk(tree)
        if isinstance(node.get("source"), int)
    ]
