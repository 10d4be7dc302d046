"""The vault's REST endpoints: categories, documents, ingestion and search."""

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema
from ninja.errors import HttpError

from apps.vault import index

router = Router(tags=["vault"])


# --- Search (retrieval) -----------------------------------------------------------------------


class SearchIn(Schema):
    q: str = Field(..., min_length=1, max_length=1000, description="What to look for.")
    k: int = Field(7, ge=1, le=50, description="How many hits.")
    category: list[int] = Field([], description="Category ids to search in (repeatable).")
    document: list[int] = Field([], description="Document ids to search in (repeatable).")


class SearchHitOut(Schema):
    chunk_id: int
    document_id: int
    filename: str
    page: int | None
    section: str
    text: str
    score: float
    dense_rank: int | None
    sparse_rank: int | None


@router.get("/vault/search", response=list[SearchHitOut])
def search(request: HttpRequest, params: Query[SearchIn]):
    """Hybrid search (meaning + exact words) over the documents you can see.

    Without `category` or `document`, the whole visible vault; with them, documents in any of
    those categories or among those documents.
    """
    if not params.q.strip():
        raise HttpError(400, "Enter something to search for.")
    try:
        return index.search(
            request.auth,
            params.q,
            k=params.k,
            category_ids=params.category,
            document_ids=params.document,
        )
    except index.ScopeError as error:
        raise HttpError(404, str(error)) from error


# --- End of search -----------------------------------------------------------------------------
