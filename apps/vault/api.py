"""The vault's REST routes: categories, documents (upload, URL import, delete, re-ingest),
ingestion runs and hybrid search, and the reader's (apps/vault/reading/api.py). Mounted at
/api/v1/vault/. What the vault refuses (errors.VaultError) is answered with its status by the
site's one handler."""

from datetime import datetime
from typing import Literal

from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from ninja import Field, File, Form, Query, Router, Schema, Status
from ninja.errors import HttpError
from ninja.files import UploadedFile

from apps.accounts import ratelimits
from apps.accounts.api import NOT_BLANK, ErrorOut, Id, require_teacher, said
from apps.vault import imports, ingestion, selftest
from apps.vault.models import Category, Document, IngestRun, SelfTestDocument
from apps.vault.reading.api import router as reading_router
from apps.vault.scope import Scope
from apps.vault.search.query import search as search_chunks
from apps.vault.uploads import store

router = Router(tags=["vault"])
router.add_router("", reading_router)

# The models' choices, spelled out: ninja files enums by class name, and four are `Status`.
DocumentScope = Literal["class", "personal"]


class CategoryIn(Schema):
    # Not blank: the category rule says so, as on the page ("Give the category a name.").
    name: str = said(100, json_schema_extra={"pattern": NOT_BLANK})


class CategoryOut(Schema):
    id: Id
    name: str


class DocumentOut(Schema):
    id: Id
    filename: str
    format: str
    category_id: Id | None
    scope: DocumentScope
    sha256: str
    status: Literal["pending", "processing", "done", "failed"]
    error: str
    pages: int | None
    chunk_count: int
    created_at: datetime
    ingested_at: datetime | None
    source_url: str
    ocr_pages: int
    downloadable: bool


class UrlIn(Schema):
    url: str = Field(
        ...,
        min_length=1,
        max_length=2000,
        # What apps/vault/fetch.py takes apart: a web address, no spaces or control characters.
        pattern=r"^[hH][tT][tT][pP][sS]?://[^\x00-\x20\x7f\\]+$",
        description="An http:// or https:// address of a public web page.",
    )
    category: Id | None = None
    scope: DocumentScope | None = None  # not said: uploads.default_scope


class IngestIn(Schema):
    document_ids: list[Id] = Field([], description="None: every document that needs it.")


NO_BODY = IngestIn()  # POST /ingest without a body: every document that needs it


class RunCreated(Schema):
    run_id: Id


class StepOut(Schema):
    name: str
    status: Literal["waiting", "running", "done", "failed"]
    done: int
    total: int
    detail: str
    elapsed_seconds: float | None


class RunOut(Schema):
    id: Id
    status: Literal["pending", "running", "done", "failed"]
    steps: list[StepOut]
    error: str
    created_at: datetime
    finished_at: datetime | None
    elapsed_seconds: float | None


# What storing a file or a web page answers: 201 a new document or version, 200 the same file
# again; 403 a student's class document, 404 an unknown category, 413 over the storage quota,
# 429 past the rate limit.
STORED = {
    201: DocumentOut,
    200: DocumentOut,
    403: ErrorOut,
    404: ErrorOut,
    413: ErrorOut,
    422: ErrorOut,
    429: ErrorOut,
}


def category_or_404(category_id: Id | None) -> Category | None:
    if category_id is None:
        return None
    return get_object_or_404(Category, pk=category_id)


@router.get("/categories", response=list[CategoryOut])
def list_categories(request: HttpRequest):
    return Category.objects.all()


@router.post(
    "/categories", response={201: CategoryOut, 403: ErrorOut, 409: ErrorOut, 422: ErrorOut}
)
def create_category(request: HttpRequest, payload: CategoryIn):
    require_teacher(request, "Only teachers manage categories.")
    return Status(201, Category.objects.create_named(payload.name))


@router.delete("/categories/{category_id}", response={204: None, 403: ErrorOut, 404: ErrorOut})
def delete_category(request: HttpRequest, category_id: Id):
    require_teacher(request, "Only teachers manage categories.")
    get_object_or_404(Category, pk=category_id).delete()
    return Status(204, None)


@router.get("/documents", response=list[DocumentOut])
def list_documents(request: HttpRequest):
    return Document.objects.visible_to(request.auth)


@router.post("/documents", response=STORED)
def upload_document(
    request: HttpRequest,
    file: File[UploadedFile],
    category: Form[Id | None] = None,
    scope: Form[DocumentScope | None] = None,
):
    """Store the file (validated) as a new document or a new version of the same filename;
    start ingestion with POST /ingest. Without `scope`, a teacher's file goes to the class and
    a student's is personal, as on the Knowledge Base page; `class` is the teachers' (403)."""
    ratelimits.check(request, "RATE_LIMIT_UPLOADS", "uploads")
    chosen = category_or_404(category)
    stored = store(request.auth, file.name, file.chunks(), scope=scope, category=chosen)
    return Status(200 if stored.outcome == "unchanged" else 201, stored.document)


@router.get("/documents/{document_id}", response={200: DocumentOut, 404: ErrorOut})
def get_document(request: HttpRequest, document_id: Id):
    return get_object_or_404(Document.objects.visible_to(request.auth), pk=document_id)


@router.delete("/documents/{document_id}", response={204: None, 403: ErrorOut, 404: ErrorOut})
def delete_document(request: HttpRequest, document_id: Id):
    document = Document.objects.to_change(request.auth, document_id)
    document.delete_with_file()
    return Status(204, None)


@router.post(
    "/documents/{document_id}/reingest",
    response={202: RunCreated, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut},
)
def reingest_document(request: HttpRequest, document_id: Id):
    document = Document.objects.to_change(request.auth, document_id)
    ratelimits.check(request, "RATE_LIMIT_REINGEST", "re-ingestions")
    document.reset_for_reingest()
    run = ingestion.start_run(request.auth, [document.pk])
    return Status(202, {"run_id": run.pk})


@router.post("/urls", response=STORED)
def import_url(request: HttpRequest, payload: UrlIn):
    """Fetch a public web page (behind the SSRF guard), keep it as an HTML document and start
    its ingestion."""
    ratelimits.check(request, "RATE_LIMIT_URL_IMPORTS", "web page imports")
    chosen = category_or_404(payload.category)
    stored = imports.import_url(request.auth, payload.url, scope=payload.scope, category=chosen)
    if stored.outcome == "unchanged":
        return Status(200, stored.document)
    ingestion.start_run(request.auth, [stored.document.pk])
    return Status(201, stored.document)


@router.post("/ingest", response={202: RunCreated, 404: ErrorOut})
def start_ingestion(request: HttpRequest, payload: IngestIn = NO_BODY):
    ids = payload.document_ids
    if ids:
        editable = Document.objects.editable_by(request.auth).filter(pk__in=ids)
        if editable.count() != len(set(ids)):
            raise HttpError(404, "Some of those documents do not exist or are not yours.")
    run = ingestion.start_run(request.auth, ids)
    return Status(202, {"run_id": run.pk})


@router.get("/ingest/{run_id}", response={200: RunOut, 404: ErrorOut})
def get_ingestion(request: HttpRequest, run_id: Id):
    # ninja reads the run's steps and calls its and their elapsed_seconds().
    return get_object_or_404(IngestRun.objects.visible_to(request.auth), pk=run_id)


# --- Search (retrieval) -----------------------------------------------------------------------


class SearchIn(Schema):
    q: str = Field(..., min_length=1, max_length=1000, description="What to look for.")
    k: int = Field(7, ge=1, le=50, description="How many hits.")
    # As many as a study scope takes (apps/study/schemas.py); the URL stays within what the
    # server reads (a request line past 16 KB is a 414, cognivault_site/webserver.py).
    category: list[Id] = Field(
        [], max_length=100, description="Category ids to search in (repeatable)."
    )
    document: list[Id] = Field(
        [], max_length=500, description="Document ids to search in (repeatable)."
    )


class SearchHitOut(Schema):
    chunk_id: Id
    document_id: Id
    filename: str
    page: int | None
    section: str
    text: str
    score: float
    dense_rank: int | None
    sparse_rank: int | None


@router.get("/search", response={200: list[SearchHitOut], 400: ErrorOut, 404: ErrorOut})
def search(request: HttpRequest, params: Query[SearchIn]):
    """Hybrid search (meaning + exact words) over the documents you can see.

    Without `category` or `document`, the whole visible vault; with them, documents in any of
    those categories or among those documents.
    """
    if not params.q.strip():
        raise HttpError(400, "Enter something to search for.")
    scope = Scope(params.category, params.document)
    return search_chunks(request.auth, params.q, k=params.k, scope=scope)


# --- End of search -----------------------------------------------------------------------------


class SelfTestRunOut(Schema):
    id: Id
    run_id: Id | None
    created_at: datetime
    questions: int
    recall_at_7: float
    mrr: float


class SelfTestDocumentOut(Schema):
    document_id: Id
    filename: str
    questions: int
    recall_at_7: float
    mrr: float
    tested_at: datetime

    @staticmethod
    def resolve_filename(row: SelfTestDocument) -> str:
        return row.document.filename

    @staticmethod
    def resolve_tested_at(row: SelfTestDocument) -> datetime:
        return row.selftest.created_at


class SelfTestOut(Schema):
    runs: list[SelfTestRunOut]
    documents: list[SelfTestDocumentOut]


@router.get("/selftest", response=SelfTestOut)
def get_selftest(request: HttpRequest):
    """Search self-test figures: the last runs (oldest first) and each document's newest
    figures, worst first. Teachers see the class vault's, students their own documents'."""
    return {
        "runs": selftest.trend(request.auth),
        "documents": selftest.latest_by_document(request.auth),
    }
