from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from apps.vault.forms import SearchForm
from apps.vault.index import search as search_chunks
from apps.vault.models import Document
from apps.vault.tokenize import highlight


@require_GET
@login_required
def index(request: HttpRequest) -> HttpResponse:
    documents = Document.objects.visible_to(request.user).select_related("category")
    return render(request, "vault/index.html", {"documents": documents})


# --- Search (retrieval) ----------------------------------------------------------------------


@require_GET
@login_required
def search(request: HttpRequest) -> HttpResponse:
    form = SearchForm(request.GET if "q" in request.GET else None, user=request.user)
    results = []
    if form.is_valid():
        query = form.cleaned_data["q"]
        hits = search_chunks(
            request.user,
            query,
            category_ids=[category.pk for category in form.cleaned_data["category"]],
            document_ids=[document.pk for document in form.cleaned_data["document"]],
        )
        results = [{"hit": hit, "parts": highlight(hit.text, query)} for hit in hits]
    template = "vault/search.html#search-results" if request.htmx else "vault/search.html"
    return render(request, template, {"form": form, "results": results})
