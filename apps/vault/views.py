"""Knowledge Base pages: the document list with upload, URL import, delete and re-ingest, the
live ingestion timeline, and the teacher's categories."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from apps.accounts.ratelimits import check, rate_limited
from apps.accounts.views import teacher_required
from apps.vault import imports, ingestion, selftest
from apps.vault.errors import NotEditable, ScopeError, VaultError
from apps.vault.forms import SearchForm
from apps.vault.models import Category, Document, IngestRun
from apps.vault.search.query import search as search_chunks
from apps.vault.sentences import STOPWORDS, body_start
from apps.vault.tokenize import highlight
from apps.vault.uploads import store

# A vault of a thousand documents is listed a page at a time: rendering all of them took 0.2 s.
DOCUMENTS_PER_PAGE = 25


def page_context(request: HttpRequest, **extra) -> dict:
    user = request.user
    runs = IngestRun.objects.visible_to(user).prefetch_related("steps")
    documents = Paginator(
        Document.objects.visible_to(user).select_related("category"), DOCUMENTS_PER_PAGE
    ).get_page(request.GET.get("page"))
    editable = Document.objects.editable_by(user).filter(pk__in=[d.pk for d in documents])
    run = extra.pop("run", None) or runs.first()
    at_work = run.at_work() if run else set()
    for document in documents:  # the step its run is at, while the run works on it
        document.at_step = run.step_now if document.pk in at_work else ""
    trend = selftest.trend(user)
    return {
        "documents": documents,
        "editable_ids": set(editable.values_list("pk", flat=True)),
        "categories": Category.objects.all(),
        "run": run,
        "max_upload_mb": settings.MAX_UPLOAD_MB,
        "max_files": settings.MAX_FILES_PER_UPLOAD,
        "selftest_documents": selftest.latest_by_document(user),
        "selftest_trend": trend_bars(trend),
        "selftest_width": (TREND_BAR + 4) * len(trend),
        **extra,
    }


TREND_BAR, TREND_HEIGHT = 14, 36


def trend_bars(tests) -> list[dict]:
    """Bars of recall@7 across the last runs, for the small SVG chart."""
    bars = []
    for i, test in enumerate(tests):
        height = max(1, round(test.recall_at_7 * TREND_HEIGHT))
        bars.append(
            {"test": test, "x": i * (TREND_BAR + 4), "height": height, "y": TREND_HEIGHT - height}
        )
    return bars


def respond(request: HttpRequest, *, notices=(), errors=(), run=None, status=200, **extra):
    """htmx gets the refreshed vault body (`extra` goes to its template); a plain form post is
    redirected to the page."""
    if request.htmx:
        context = page_context(request, notices=notices, errors=errors, run=run, **extra)
        return render(request, "vault/index.html#vault-body", context, status=status)
    for text in notices:
        messages.success(request, text)
    for text in errors:
        messages.error(request, text)
    return redirect("vault:index")


def chosen_category(request: HttpRequest) -> tuple[Category | None, bool]:
    """The form's category, and whether one was named that does not exist."""
    value = request.POST.get("category", "")
    if not value:
        return None, False
    category = Category.objects.filter(pk=int(value)).first() if value.isdigit() else None
    return category, category is None


@require_GET
@login_required
def index(request: HttpRequest) -> HttpResponse:
    template = "vault/index.html#library" if request.htmx else "vault/index.html"
    return render(request, template, page_context(request))


@require_POST
@login_required
@rate_limited("RATE_LIMIT_UPLOADS", "uploads")
def upload(request: HttpRequest) -> HttpResponse:
    files = request.FILES.getlist("files")
    if not files:
        return respond(request, errors=["Choose at least one file."], status=422)
    category, missing = chosen_category(request)
    if missing:
        return respond(request, errors=["That category does not exist."], status=422)
    scope = request.POST.get("scope") or None  # not said: uploads.default_scope
    notices, errors, queued = [], [], []
    for uploaded in files:
        try:
            stored = store(
                request.user, uploaded.name, uploaded.chunks(), scope=scope, category=category
            )
        except VaultError as error:
            errors.append(str(error))
            continue
        if stored.outcome == "unchanged":
            notices.append(f"{stored.document.filename} is unchanged.")
        else:
            queued.append(stored.document.pk)
            notices.append(f"{stored.document.filename} uploaded ({stored.outcome}).")
    run = ingestion.start_run(request.user, queued) if queued else None
    return respond(
        request,
        notices=notices,
        errors=errors,
        run=run,
        status=200 if queued or not errors else 422,
    )


@require_POST
@login_required
@rate_limited("RATE_LIMIT_URL_IMPORTS", "web page imports")
def import_url(request: HttpRequest) -> HttpResponse:
    category, missing = chosen_category(request)
    if missing:
        return respond(request, errors=["That category does not exist."], status=422)
    scope = request.POST.get("scope") or None  # not said: uploads.default_scope
    try:
        stored = imports.import_url(
            request.user, request.POST.get("url", ""), scope=scope, category=category
        )
    except VaultError as error:
        return respond(request, errors=[str(error)], status=error.status)
    if stored.outcome == "unchanged":
        return respond(request, notices=[f"{stored.document.filename} is unchanged."])
    run = ingestion.start_run(request.user, [stored.document.pk])
    return respond(request, notices=[f"Imported {stored.document.filename}."], run=run)


def editable_document(request: HttpRequest, pk: int) -> Document:
    try:
        return Document.objects.to_change(request.user, pk)
    except NotEditable as refusal:
        raise PermissionDenied(str(refusal)) from None


@require_POST
@login_required
def delete_document(request: HttpRequest, pk: int) -> HttpResponse:
    document = editable_document(request, pk)
    document.delete_with_file()
    return respond(request, notices=[f"Deleted {document.filename}."])


@require_POST
@login_required
def allow_download(request: HttpRequest, pk: int) -> HttpResponse:
    """A teacher lets students download a class document's original, or stops them."""
    document = editable_document(request, pk)
    allowed = request.POST.get("allowed") == "true"
    Document.objects.filter(pk=pk).update(downloadable=allowed)
    state = "may download" if allowed else "can no longer download"
    return respond(request, notices=[f"Students {state} {document.filename}."])


@require_POST
@login_required
def reingest_document(request: HttpRequest, pk: int) -> HttpResponse:
    document = editable_document(request, pk)
    check(request, "RATE_LIMIT_REINGEST", "re-ingestions")
    document.reset_for_reingest()
    run = ingestion.start_run(request.user, [document.pk])
    return respond(request, notices=[f"Ingesting {document.filename} again."], run=run)


@require_POST
@login_required
def ingest_all(request: HttpRequest) -> HttpResponse:
    run = ingestion.start_run(request.user)
    return respond(request, notices=["Checking all your documents for changes."], run=run)


@require_GET
@login_required
def run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(IngestRun.objects.visible_to(request.user), pk=pk)
    if not request.htmx:
        return render(request, "vault/run.html", {"run": run})
    response = render(request, "vault/run.html#run-timeline", {"run": run})
    # The Documents table reads again when the run ends or moves on to another step (the
    # timeline asks with the step it shows).
    if run.finished:
        response["HX-Trigger"] = "vault-run-finished"
    elif run.step_now != request.GET.get("step", ""):
        response["HX-Trigger"] = "vault-run-progress"
    return response


@require_POST
@teacher_required
def create_category(request: HttpRequest) -> HttpResponse:
    name = request.POST.get("name", "").strip()[:100]
    try:
        category = Category.objects.create_named(name)
    except VaultError as refusal:
        return respond(request, errors=[str(refusal)], status=refusal.status, category_name=name)
    return respond(request, notices=[f"Category {category.name} created."], categories_changed=True)


@require_POST
@teacher_required
def delete_category(request: HttpRequest, pk: int) -> HttpResponse:
    category = get_object_or_404(Category, pk=pk)
    category.delete()
    return respond(
        request,
        notices=[f"Category {category.name} deleted; its documents stay."],
        categories_changed=True,
    )


@require_GET
@login_required
def search(request: HttpRequest) -> HttpResponse:
    form = SearchForm(request.GET if "q" in request.GET else None, user=request.user)
    results = []
    if form.is_valid():
        query = form.cleaned_data["q"]
        try:
            hits = search_chunks(request.user, query, scope=form.scope)
        except ScopeError as error:  # deleted since the form checked it
            form.add_error(None, str(error))
            hits = []
        # The section stands above the text, not as the chunk's `[Section: …]` line in it.
        results = [
            {"hit": hit, "parts": highlight(hit.text[body_start(hit.text) :], query, STOPWORDS)}
            for hit in hits
        ]
    template = "vault/search.html#search-results" if request.htmx else "vault/search.html"
    return render(request, template, {"form": form, "results": results})
