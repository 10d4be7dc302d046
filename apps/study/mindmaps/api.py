"""Mindmaps under /api/v1/study/mindmaps: generate or bring a tree, arrange, fold, draw."""

from datetime import datetime

from csp.decorators import csp_replace
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from ninja import Field, Router, Schema, Status

from apps.accounts import ratelimits
from apps.study import stale
from apps.study.mindmaps import generation, svg
from apps.study.mindmaps.models import Mindmap
from apps.study.schemas import RefreshOut, ScopeIn

router = Router(tags=["study"])

# Opened directly in a tab the SVG is a document of its own: nothing in it may run or load, and
# it gets an origin of its own (sandbox).
svg_policy = csp_replace(
    {
        "default-src": ["'none'"],
        "script-src": ["'none'"],
        "style-src": ["'unsafe-inline'"],
        "img-src": ["data:"],
        "connect-src": None,
        "base-uri": ["'none'"],
        "form-action": ["'none'"],
        "sandbox": [""],
    }
)


class MindmapIn(ScopeIn):
    """Generate from the vault (a scope), or bring the `tree` yourself."""

    title: str | None = Field(None, max_length=200)
    tree: dict | None = None


# Checked by the mindmap itself, after the ownership check (see the decks' API).
class MindmapPatch(Schema):
    title: str | None = Field(None, max_length=200)
    layout: str | None = Field(None, max_length=10)


class NodeIn(Schema):
    node: str = Field("", max_length=40)


class PositionIn(NodeIn):
    layout: str | None = Field(None, max_length=10)
    x: float = 0
    y: float = 0


class MindmapOut(Schema):
    id: int
    title: str
    layout: str
    tree: dict
    positions: dict
    collapsed: list[str]
    created_at: datetime
    svg_url: str
    stale_nodes: list[str]  # ids of the nodes whose cited passage re-ingestion retired

    @staticmethod
    def resolve_svg_url(mindmap: Mindmap) -> str:
        return f"/api/v1/study/mindmaps/{mindmap.pk}.svg"

    @staticmethod
    def resolve_stale_nodes(mindmap: Mindmap) -> list[str]:
        return [node_id for node_id, _ in stale.stale_nodes(mindmap)]


def own_mindmap(request: HttpRequest, mindmap_id: int) -> Mindmap:
    return get_object_or_404(Mindmap.objects.visible_to(request.auth), pk=mindmap_id)


@router.get("/mindmaps", response=list[MindmapOut])
def list_mindmaps(request: HttpRequest):
    return Mindmap.objects.visible_to(request.auth)


@router.post("/mindmaps", response={201: MindmapOut})
def create_mindmap(request: HttpRequest, payload: MindmapIn):
    title = (payload.title or "").strip()
    if payload.tree is None:
        ratelimits.check(request, "RATE_LIMIT_GENERATION", "study generations")
        mindmap, _badges = generation.generate(
            request.auth, payload.scope, title, method=payload.method
        )
    else:
        mindmap, _badges = Mindmap.objects.create_from(request.auth, payload.tree, title)
    return Status(201, mindmap)


@router.get("/mindmaps/{int:mindmap_id}", response=MindmapOut)
def get_mindmap(request: HttpRequest, mindmap_id: int):
    return own_mindmap(request, mindmap_id)


@router.get("/mindmaps/{int:mindmap_id}.svg", response={200: None})
@svg_policy
def mindmap_svg(request: HttpRequest, mindmap_id: int):
    """The same SVG the page shows, in the saved layout and arrangement."""
    mindmap = own_mindmap(request, mindmap_id)
    changed = [node_id for node_id, _ in stale.stale_nodes(mindmap)]
    drawn = svg.render_svg(mindmap, changed=changed)
    return HttpResponse(drawn, content_type="image/svg+xml")


@router.patch("/mindmaps/{int:mindmap_id}", response=MindmapOut)
def update_mindmap(request: HttpRequest, mindmap_id: int, payload: MindmapPatch | None = None):
    mindmap = own_mindmap(request, mindmap_id)
    payload = payload or MindmapPatch()
    mindmap.change(title=payload.title, layout=payload.layout)
    return mindmap


@router.delete("/mindmaps/{int:mindmap_id}", response={204: None})
def delete_mindmap(request: HttpRequest, mindmap_id: int):
    own_mindmap(request, mindmap_id).delete()
    return Status(204, None)


@router.post("/mindmaps/{int:mindmap_id}/positions", response=MindmapOut)
def move_node(request: HttpRequest, mindmap_id: int, payload: PositionIn | None = None):
    mindmap = own_mindmap(request, mindmap_id)
    payload = payload or PositionIn()
    mindmap.move_node(payload.node, payload.layout or mindmap.layout, payload.x, payload.y)
    return mindmap


@router.delete("/mindmaps/{int:mindmap_id}/positions", response=MindmapOut)
def reset_layout(request: HttpRequest, mindmap_id: int):
    mindmap = own_mindmap(request, mindmap_id)
    mindmap.reset_layout()
    return mindmap


@router.post("/mindmaps/{int:mindmap_id}/collapsed", response=MindmapOut)
def toggle_branch(request: HttpRequest, mindmap_id: int, payload: NodeIn | None = None):
    mindmap = own_mindmap(request, mindmap_id)
    mindmap.toggle((payload or NodeIn()).node)
    return mindmap


@router.post("/mindmaps/{int:mindmap_id}/refresh", response=RefreshOut)
def refresh_mindmap(request: HttpRequest, mindmap_id: int):
    """Only the nodes whose source changed cite the passage that answers them now."""
    mindmap = own_mindmap(request, mindmap_id)
    refreshed = stale.refresh_mindmap(mindmap)
    return {"refreshed": refreshed, "stale": len(stale.stale_nodes(mindmap))}
