"""Mindmaps under /api/v1/study/mindmaps: generate or bring a tree, arrange, fold, draw."""

from datetime import datetime
from typing import Annotated, Literal

from csp.decorators import csp_replace
from django.http import HttpRequest, HttpResponse
from ninja import Field, Router, Schema, Status

from apps.accounts.api import NOT_BLANK, ErrorOut, Id
from apps.study import starting
from apps.study.classsets.models import ClassSet
from apps.study.mindmaps import generation, svg
from apps.study.mindmaps.models import Mindmap
from apps.study.mindmaps.stale import refresh_mindmap as refresh_stale
from apps.study.mindmaps.stale import stale_nodes
from apps.study.ownership import get_visible
from apps.study.schemas import (
    STARTING_ERRORS,
    GenerationStatus,
    IdempotencyKey,
    RefreshOut,
    ScopeIn,
    StartedOut,
    checked_by_the_rule,
)

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


# A title that says something (docs/api.md); the mindmap's rule refuses a blank one with its
# own message, the same when it is made as when it is renamed (and on the page).
Title = Annotated[str, checked_by_the_rule(pattern=NOT_BLANK)]


class MindmapIn(ScopeIn):
    """Generate from the vault (a scope), or bring the `tree` yourself."""

    title: Title | None = Field(None, max_length=200)
    tree: dict | None = None


Layout = Annotated[str, checked_by_the_rule(enum=Mindmap.Layout.values)]
ON_CANVAS = {"minimum": -Mindmap.POSITION_LIMIT, "maximum": Mindmap.POSITION_LIMIT}


# A PATCH without a body changes nothing, so someone else's mindmap answers 404 to it (see the
# decks' API). The mindmap checks the values too, as for the page.
class MindmapPatch(Schema):
    title: Title | None = Field(None, max_length=200)
    layout: Layout | None = None


NO_CHANGE = MindmapPatch()


class NodeIn(Schema):
    node: str = Field(..., min_length=1, max_length=40, description="e.g. r, r.0, r.0.2")


class PositionIn(NodeIn):
    layout: Layout | None = None
    x: Annotated[float, checked_by_the_rule(**ON_CANVAS)] = 0
    y: Annotated[float, checked_by_the_rule(**ON_CANVAS)] = 0


class MindmapOut(Schema):
    id: Id
    status: GenerationStatus  # a generated mindmap's tree is here once it is ready
    error: str
    title: str
    layout: Literal["lr", "tb", "radial"]
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
        return [node_id for node_id, _ in stale_nodes(mindmap)]


@router.get("/mindmaps", response=list[MindmapOut])
def list_mindmaps(request: HttpRequest):
    return Mindmap.objects.visible_to(request.auth).settled()


@router.post(
    "/mindmaps",
    response={201: MindmapOut, 202: StartedOut, 413: ErrorOut, 422: ErrorOut, **STARTING_ERRORS},
)
def create_mindmap(request: HttpRequest, payload: MindmapIn, key: IdempotencyKey = ""):
    """A tree you bring is drawn at once (201); a mindmap from the vault is started (202) and
    a worker draws it: GET it until `status` is ready."""
    school_class = starting.class_for(request.auth, payload.for_class, payload.class_id)
    title = "" if payload.title is None else Mindmap.said_title(payload.title)
    if payload.tree is not None:
        mindmap, _badges = Mindmap.objects.create_from(request.auth, payload.tree, title)
        if school_class:
            ClassSet.objects.hand_out(request.auth, mindmap, school_class)
        return Status(201, mindmap)
    mindmap = starting.start(
        request,
        "mindmap",
        request.auth,
        key,
        generation.start_mindmap,
        for_class=school_class,
        scope=payload.scope,
        title=title,
        method=payload.method,
    )
    return Status(202, mindmap)


# Before /mindmaps/{mindmap_id}, which would otherwise take "7.svg" as the id. Plain
# `{mindmap_id}` (not `{int:…}`) so that "abc" or "-1" is a 422 like on every route, not a page 404.
@router.get("/mindmaps/{mindmap_id}.svg", response={200: None, 404: ErrorOut})
@svg_policy
def mindmap_svg(request: HttpRequest, mindmap_id: Id):
    """The same SVG the page shows, in the saved layout and arrangement."""
    mindmap = Mindmap.objects.arranged(request.auth, mindmap_id)
    changed = [node_id for node_id, _ in stale_nodes(mindmap)]
    drawn = svg.render_svg(mindmap, changed=changed)
    return HttpResponse(drawn, content_type="image/svg+xml")


@router.get("/mindmaps/{mindmap_id}", response={200: MindmapOut, 404: ErrorOut})
def get_mindmap(request: HttpRequest, mindmap_id: Id):
    mindmap = Mindmap.objects.arranged(request.auth, mindmap_id)
    mindmap.settle()
    return mindmap


@router.patch("/mindmaps/{mindmap_id}", response={200: MindmapOut, 404: ErrorOut, 422: ErrorOut})
def update_mindmap(request: HttpRequest, mindmap_id: Id, payload: MindmapPatch = NO_CHANGE):
    mindmap = get_visible(Mindmap.objects.visible_to, request.auth, pk=mindmap_id)
    mindmap.change(title=payload.title, layout=payload.layout)
    return mindmap


@router.delete("/mindmaps/{mindmap_id}", response={204: None, 404: ErrorOut})
def delete_mindmap(request: HttpRequest, mindmap_id: Id):
    get_visible(Mindmap.objects.visible_to, request.auth, pk=mindmap_id).delete()
    return Status(204, None)


@router.post(
    "/mindmaps/{mindmap_id}/positions",
    response={200: MindmapOut, 404: ErrorOut, 422: ErrorOut},
)
def move_node(request: HttpRequest, mindmap_id: Id, payload: PositionIn):
    mindmap = Mindmap.objects.arranged(request.auth, mindmap_id)
    mindmap.move_node(payload.node, payload.layout or mindmap.layout, payload.x, payload.y)
    return mindmap


@router.delete("/mindmaps/{mindmap_id}/positions", response={200: MindmapOut, 404: ErrorOut})
def reset_layout(request: HttpRequest, mindmap_id: Id):
    mindmap = Mindmap.objects.arranged(request.auth, mindmap_id)
    mindmap.reset_layout()
    return mindmap


@router.post(
    "/mindmaps/{mindmap_id}/collapsed",
    response={200: MindmapOut, 404: ErrorOut, 422: ErrorOut},
)
def toggle_branch(request: HttpRequest, mindmap_id: Id, payload: NodeIn):
    mindmap = Mindmap.objects.arranged(request.auth, mindmap_id)
    mindmap.toggle(payload.node)
    return mindmap


@router.post("/mindmaps/{mindmap_id}/refresh", response={200: RefreshOut, 404: ErrorOut})
def refresh_mindmap(request: HttpRequest, mindmap_id: Id):
    """Only the nodes whose source changed cite the passage that answers them now."""
    mindmap = get_visible(Mindmap.objects.visible_to, request.auth, pk=mindmap_id)
    refreshed = refresh_stale(mindmap)
    return {"refreshed": refreshed, "stale": len(stale_nodes(mindmap))}
