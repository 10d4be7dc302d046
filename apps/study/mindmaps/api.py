"""Mindmaps under /api/v1/study/mindmaps: generate or bring a tree, arrange, fold, draw."""

from datetime import datetime
from typing import Literal

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from ninja import Field, Router, Schema, Status
from ninja.errors import HttpError

from apps.study import events, generator
from apps.study.mindmaps import generation, svg, tree
from apps.study.mindmaps.models import Mindmap
from apps.study.schemas import ScopeIn, generation_error

router = Router(tags=["study"])


class MindmapIn(ScopeIn):
    """Generate from the vault (a scope), or bring the `tree` yourself."""

    title: str | None = Field(None, max_length=200)
    tree: dict | None = None


class MindmapPatch(Schema):
    title: str | None = Field(None, min_length=1, max_length=200)
    layout: Literal["lr", "tb", "radial"] | None = None


class NodeIn(Schema):
    node: str = Field("", max_length=40)


class PositionIn(NodeIn):
    layout: Literal["lr", "tb", "radial"] | None = None
    x: float = Field(0, ge=-Mindmap.POSITION_LIMIT, le=Mindmap.POSITION_LIMIT)
    y: float = Field(0, ge=-Mindmap.POSITION_LIMIT, le=Mindmap.POSITION_LIMIT)


class MindmapOut(Schema):
    id: int
    title: str
    layout: str
    tree: dict
    positions: dict
    collapsed: list[str]
    created_at: datetime
    svg_url: str

    @staticmethod
    def resolve_svg_url(mindmap: Mindmap) -> str:
        return f"/api/v1/study/mindmaps/{mindmap.pk}.svg"


def own_mindmap(request: HttpRequest, mindmap_id: int) -> Mindmap:
    return get_object_or_404(Mindmap.objects.visible_to(request.auth), pk=mindmap_id)


@router.get("/mindmaps", response=list[MindmapOut])
def list_mindmaps(request: HttpRequest):
    return Mindmap.objects.visible_to(request.auth)


@router.post("/mindmaps", response={201: MindmapOut})
def create_mindmap(request: HttpRequest, payload: MindmapIn):
    title = (payload.title or "").strip()
    try:
        if payload.tree is None:
            mindmap = generation.generate(request.auth, payload.scope, title)
        else:
            root = tree.clean_tree(payload.tree)
            mindmap = Mindmap.objects.create(
                owner=request.auth, title=(title or root["title"])[:200], tree=root
            )
            events.mindmap_created(request.auth)
    except generator.GenerationError as error:
        raise generation_error(error) from error
    except tree.MindmapError as error:
        raise HttpError(422, str(error)) from error
    return Status(201, mindmap)


@router.get("/mindmaps/{int:mindmap_id}", response=MindmapOut)
def get_mindmap(request: HttpRequest, mindmap_id: int):
    return own_mindmap(request, mindmap_id)


@router.get("/mindmaps/{int:mindmap_id}.svg", response={200: None})
def mindmap_svg(request: HttpRequest, mindmap_id: int):
    """The same SVG the page shows, in the saved layout and arrangement."""
    drawn = svg.render_svg(own_mindmap(request, mindmap_id))
    return HttpResponse(drawn, content_type="image/svg+xml")


@router.patch("/mindmaps/{int:mindmap_id}", response=MindmapOut)
def update_mindmap(request: HttpRequest, mindmap_id: int, payload: MindmapPatch | None = None):
    mindmap = own_mindmap(request, mindmap_id)
    payload = payload or MindmapPatch()
    if payload.title:
        mindmap.title = payload.title
    if payload.layout:
        mindmap.layout = payload.layout
    mindmap.save(update_fields=["title", "layout", "updated_at"])
    return mindmap


@router.delete("/mindmaps/{int:mindmap_id}", response={204: None})
def delete_mindmap(request: HttpRequest, mindmap_id: int):
    own_mindmap(request, mindmap_id).delete()
    return Status(204, None)


@router.post("/mindmaps/{int:mindmap_id}/positions", response=MindmapOut)
def move_node(request: HttpRequest, mindmap_id: int, payload: PositionIn | None = None):
    mindmap = own_mindmap(request, mindmap_id)
    payload = payload or PositionIn()
    try:
        mindmap.move_node(payload.node, payload.layout or mindmap.layout, payload.x, payload.y)
    except KeyError as error:
        raise HttpError(422, f"No node {payload.node!r} in this mindmap.") from error
    return mindmap


@router.delete("/mindmaps/{int:mindmap_id}/positions", response=MindmapOut)
def reset_layout(request: HttpRequest, mindmap_id: int):
    mindmap = own_mindmap(request, mindmap_id)
    mindmap.reset_layout()
    return mindmap


@router.post("/mindmaps/{int:mindmap_id}/collapsed", response=MindmapOut)
def toggle_branch(request: HttpRequest, mindmap_id: int, payload: NodeIn | None = None):
    mindmap = own_mindmap(request, mindmap_id)
    payload = payload or NodeIn()
    try:
        mindmap.toggle(payload.node)
    except KeyError as error:
        raise HttpError(422, f"No node {payload.node!r} in this mindmap.") from error
    return mindmap
