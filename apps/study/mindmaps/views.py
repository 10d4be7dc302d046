"""Mindmap pages: the tab (generate, draw from an outline), the map with its tools, exports."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_POST

from apps.study import events
from apps.study.mindmaps import generation, svg, tree
from apps.study.mindmaps.forms import (
    MindmapGenerateForm,
    MindmapLayoutForm,
    MindmapOutlineForm,
    MindmapTitleForm,
    NodeForm,
    NodePositionForm,
)
from apps.study.mindmaps.models import Mindmap
from apps.study.views import MARKDOWN, download, generated, study_tab

EXPORTS = {
    "svg": ("image/svg+xml", lambda m: svg.render_svg(m).encode()),
    "png": ("image/png", svg.to_png),
    "pdf": ("application/pdf", svg.to_pdf),
    "md": (MARKDOWN, lambda m: tree.outline(m.tree).encode()),
}


def render_mindmap_list(
    request: HttpRequest, form=None, generate_form=None, error: str = "", status: int = 200
) -> HttpResponse:
    context = {
        "mindmaps": Mindmap.objects.visible_to(request.user),
        "form": form or MindmapOutlineForm(),
        "generate_form": generate_form or MindmapGenerateForm(user=request.user),
        "error": error,
    }
    return study_tab(request, "study/mindmaps/list.html", context, status)


@require_POST
@login_required
def mindmap_generate(request: HttpRequest) -> HttpResponse:
    form = MindmapGenerateForm(request.POST, user=request.user)
    error = ""
    if form.is_valid():
        mindmap, error = generated(
            lambda: generation.generate(request.user, form.scope, form.cleaned_data["title"])
        )
        if mindmap is not None:
            return redirect("study:mindmap", pk=mindmap.pk)
    return render_mindmap_list(request, generate_form=form, error=error, status=400)


@require_GET
@login_required
def mindmap_list(request: HttpRequest) -> HttpResponse:
    return render_mindmap_list(request)


@require_POST
@login_required
def mindmap_create(request: HttpRequest) -> HttpResponse:
    form = MindmapOutlineForm(request.POST)
    if form.is_valid():
        try:
            root = tree.parse_outline(
                form.cleaned_data["outline"], form.cleaned_data["title"] or "Mindmap"
            )
        except tree.MindmapError as error:
            form.add_error("outline", str(error))
        else:
            title = form.cleaned_data["title"] or root["title"]
            mindmap = Mindmap.objects.create(owner=request.user, title=title[:200], tree=root)
            events.mindmap_created(request.user)
            return redirect("study:mindmap", pk=mindmap.pk)
    return render_mindmap_list(request, form, status=400)


def render_mindmap(request: HttpRequest, mindmap: Mindmap, status: int = 200) -> HttpResponse:
    context = {
        "mindmap": mindmap,
        "svg": svg.render_svg(mindmap),
        "layouts": Mindmap.Layout.choices,
        "export_formats": ("svg", "png", "pdf", "md"),
    }
    template = "study/mindmaps/detail.html" + ("#mindmap-canvas" if request.htmx else "")
    return render(request, template, context, status=status)


def own_mindmap(request: HttpRequest, pk: int) -> Mindmap:
    return get_object_or_404(Mindmap.objects.visible_to(request.user), pk=pk)


@require_GET
@login_required
def mindmap_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return render_mindmap(request, own_mindmap(request, pk))


@require_POST
@login_required
def mindmap_layout(request: HttpRequest, pk: int) -> HttpResponse:
    mindmap = own_mindmap(request, pk)
    form = MindmapLayoutForm(request.POST)
    if not form.is_valid():
        return HttpResponse("Choose a layout: lr, tb or radial.", status=400)
    mindmap.layout = form.cleaned_data["layout"]
    mindmap.save(update_fields=["layout", "updated_at"])
    return render_mindmap(request, mindmap)


@require_POST
@login_required
def mindmap_reset(request: HttpRequest, pk: int) -> HttpResponse:
    mindmap = own_mindmap(request, pk)
    mindmap.reset_layout()
    return render_mindmap(request, mindmap)


@require_POST
@login_required
def mindmap_toggle(request: HttpRequest, pk: int) -> HttpResponse:
    mindmap = own_mindmap(request, pk)
    form = NodeForm(request.POST)
    try:
        mindmap.toggle(form.data.get("node", ""))
    except KeyError:
        return HttpResponse("No such node in this mindmap.", status=400)
    return render_mindmap(request, mindmap)


@require_POST
@login_required
def mindmap_move(request: HttpRequest, pk: int) -> HttpResponse:
    mindmap = own_mindmap(request, pk)
    form = NodePositionForm(request.POST)
    if not form.is_valid():
        return HttpResponse("A move needs a node, a layout and x, y within ±100000.", status=400)
    data = form.cleaned_data
    try:
        mindmap.move_node(data["node"], data["layout"], data["x"], data["y"])
    except KeyError:
        return HttpResponse("No such node in this mindmap.", status=400)
    return HttpResponse(status=204)


@require_POST
@login_required
def mindmap_rename(request: HttpRequest, pk: int) -> HttpResponse:
    mindmap = own_mindmap(request, pk)
    form = MindmapTitleForm(request.POST)
    if form.is_valid():
        mindmap.title = form.cleaned_data["title"]
        mindmap.save(update_fields=["title", "updated_at"])
    else:
        messages.error(request, "Give the mindmap a name.")
    return redirect("study:mindmap", pk=mindmap.pk)


@require_POST
@login_required
def mindmap_delete(request: HttpRequest, pk: int) -> HttpResponse:
    mindmap = own_mindmap(request, pk)
    mindmap.delete()
    messages.success(request, f"Deleted the mindmap “{mindmap.title}”.")
    return redirect("study:mindmaps")


@require_GET
@login_required
def mindmap_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    mindmap = own_mindmap(request, pk)
    name = slugify(mindmap.title)[:80] or f"mindmap-{mindmap.pk}"
    response = download(mindmap, fmt, EXPORTS, name)
    events.mindmap_exported(request.user)
    return response
