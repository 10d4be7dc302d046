"""Mindmap pages: the tab (generate, draw from an outline), the map with its tools, exports."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_POST

from apps.progress import tracking
from apps.study import errors, stale
from apps.study.errors import StudyError
from apps.study.mindmaps import generation, svg, tree
from apps.study.mindmaps.forms import MindmapGenerateForm, MindmapOutlineForm, NodePositionForm
from apps.study.mindmaps.models import Mindmap
from apps.study.mindmaps.stale import node_text, stale_nodes
from apps.study.ownership import get_visible
from apps.study.views import MARKDOWN, announce, download, generate, render_generating, study_tab

EXPORTS = {
    "svg": ("image/svg+xml", lambda m: svg.render_svg(m, controls=False).encode()),
    "png": ("image/png", svg.to_png),
    "pdf": ("application/pdf", svg.to_pdf),
    "md": (MARKDOWN, lambda m: tree.outline(m.tree).encode()),
}


def render_mindmap_list(
    request: HttpRequest, form=None, generate_form=None, status: int = 200
) -> HttpResponse:
    context = {
        "mindmaps": Mindmap.objects.visible_to(request.user).settled(),
        "form": form or MindmapOutlineForm(),
        "generate_form": generate_form or MindmapGenerateForm(user=request.user),
    }
    return study_tab(request, "study/mindmaps/list.html", context, status)


@require_POST
@login_required
def mindmap_generate(request: HttpRequest) -> HttpResponse:
    form = MindmapGenerateForm(request.POST, user=request.user)
    if started := generate(request, "mindmap", form, generation.start_mindmap, "title"):
        return started
    return render_mindmap_list(request, generate_form=form, status=errors.PAGE_STATUS)


@require_GET
@login_required
def mindmap_list(request: HttpRequest) -> HttpResponse:
    return render_mindmap_list(request)


@require_POST
@login_required
def mindmap_create(request: HttpRequest) -> HttpResponse:
    """A mindmap drawn from a Markdown outline the person wrote."""
    form = MindmapOutlineForm(request.POST)
    if form.is_valid():
        title = form.cleaned_data["title"]
        try:
            outline, left_out = tree.read_outline(form.cleaned_data["outline"], title or "Mindmap")
            mindmap, badges = Mindmap.objects.create_from(request.user, outline, title)
        except StudyError as error:
            errors.show(request, error, form)
        else:
            announce(request, badges)
            if left_out:
                messages.warning(request, "Left out of the mindmap: " + "; ".join(left_out))
            return redirect("study:mindmap-detail", pk=mindmap.pk)
    return render_mindmap_list(request, form, status=errors.PAGE_STATUS)


def render_mindmap(request: HttpRequest, mindmap: Mindmap, status: int = 200) -> HttpResponse:
    owner = mindmap.owner_id == request.user.pk
    changed = stale_nodes(mindmap) if owner else []  # the owner's to refresh
    # An htmx swap redraws only the canvas; the stale nodes are listed outside it.
    new = (
        {}
        if request.htmx
        else stale.passages_now(mindmap, {node_id: node_text(node) for node_id, node in changed})
    )
    context = {
        "stale_count": len(changed),
        "stale_nodes": [(node, new.get(node_id)) for node_id, node in changed],
        "mindmap": mindmap,
        "owner": owner,
        "svg": svg.render_svg(mindmap, changed=[node_id for node_id, _ in changed]),
        "sources": node_sources(mindmap, {node_id for node_id, _ in changed}),
        "layouts": Mindmap.Layout.choices,
        "export_formats": tuple(EXPORTS),
    }
    template = "study/mindmaps/detail.html" + ("#mindmap-canvas" if request.htmx else "")
    return render(request, template, context, status=status)


def node_sources(mindmap: Mindmap, changed: set[str]) -> list[tuple[str, int]]:
    """(title, chunk id) of each node that cites a passage still there, for links to it."""
    return [
        (node["title"], node["source"])
        for node_id, node, _, _ in tree.walk(mindmap.tree)
        if isinstance(node.get("source"), int) and node_id not in changed
    ]


@require_GET
@login_required
def mindmap_detail(request: HttpRequest, pk: int) -> HttpResponse:
    mindmap = Mindmap.objects.arranged(request.user, pk)
    mindmap.settle()
    if not mindmap.is_ready:
        return render_generating(request, "mindmap", mindmap)
    return render_mindmap(request, mindmap)


@require_POST
@login_required
def mindmap_layout(request: HttpRequest, pk: int) -> HttpResponse:
    mindmap = Mindmap.objects.arranged(request.user, pk)
    try:
        mindmap.change(layout=request.POST.get("layout", ""))
    except StudyError as error:
        errors.show(request, error)
        return render_mindmap(request, mindmap, status=errors.PAGE_STATUS)
    return render_mindmap(request, mindmap)


@require_POST
@login_required
def mindmap_reset(request: HttpRequest, pk: int) -> HttpResponse:
    mindmap = Mindmap.objects.arranged(request.user, pk)
    mindmap.reset_layout()
    return render_mindmap(request, mindmap)


@require_POST
@login_required
def mindmap_toggle(request: HttpRequest, pk: int) -> HttpResponse:
    mindmap = Mindmap.objects.arranged(request.user, pk)
    try:
        mindmap.toggle(request.POST.get("node", ""))
    except StudyError as error:
        errors.show(request, error)
        return render_mindmap(request, mindmap, status=errors.PAGE_STATUS)
    return render_mindmap(request, mindmap)


@require_POST
@login_required
def mindmap_move(request: HttpRequest, pk: int) -> HttpResponse:
    """Where the page's script dropped a node; it reads a refusal as plain text."""
    mindmap = Mindmap.objects.arranged(request.user, pk)
    form = NodePositionForm(request.POST)
    if not form.is_valid():
        message = "A move needs a node, a layout and numbers x and y."
        return HttpResponse(message, status=errors.PAGE_STATUS)
    data = form.cleaned_data
    try:
        mindmap.move_node(data["node"], data["layout"], data["x"], data["y"])
    except StudyError as error:
        return HttpResponse(str(error), status=errors.PAGE_STATUS)
    return HttpResponse(status=204)


@require_POST
@login_required
def mindmap_update(request: HttpRequest, pk: int) -> HttpResponse:
    mindmap = get_visible(Mindmap.objects.visible_to, request.user, pk=pk)
    try:
        mindmap.change(title=request.POST.get("title", ""))
    except StudyError as error:
        errors.show(request, error)
    return redirect("study:mindmap-detail", pk=mindmap.pk)


@require_GET
@login_required
def mindmap_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    mindmap = Mindmap.objects.arranged(request.user, pk)
    name = slugify(mindmap.title)[:80] or f"mindmap-{mindmap.pk}"
    response = download(mindmap, fmt, EXPORTS, name)
    announce(request, tracking.record_mindmap_exported(request.user))
    return response
