"""The privacy audit page, its live fragments, and the teacher's view of the prompt templates."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from apps.accounts.views import teacher_required
from apps.llm import audit, prompts


@require_GET
@login_required
def privacy(request: HttpRequest) -> HttpResponse:
    context = {
        "stats": audit.vault_stats(request.user),
        "connections": audit.connections(request.user),
    }
    return render(request, "llm/privacy.html", context)


@require_GET
@login_required
def connection_list(request: HttpRequest) -> HttpResponse:
    """The list's live fragment for htmx; its address opened in a browser is the page."""
    if not request.htmx:
        return redirect("llm:privacy")
    connections = audit.connections(request.user)
    return render(request, "llm/privacy.html#connection-list", {"connections": connections})


@require_GET
@login_required
def egress_indicator(request: HttpRequest) -> HttpResponse:
    if not request.htmx:
        return redirect("llm:privacy")
    # The count itself comes from the context processor, like on every other page.
    return render(request, "llm/privacy.html#egress-indicator")


@require_GET
@teacher_required
def prompt_templates(request: HttpRequest) -> HttpResponse:
    context = {"templates": prompts.effective_templates(), "custom_dir": prompts.custom_dir()}
    return render(request, "llm/prompts.html", context)
