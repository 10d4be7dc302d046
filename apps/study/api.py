"""Study Hub routes that span its features: how many items' sources changed. Mounted at
/api/v1/study/ beside the feature routers."""

from django.http import HttpRequest
from ninja import Router, Schema
from pydantic import create_model

from apps.study import kinds, stale

router = Router(tags=["study"])

# A count per kind's parts citing a source ("questions": 2, ...), and their total.
StaleOut = create_model(
    "StaleOut",
    __base__=Schema,
    **{kind.parts: (int, ...) for kind in kinds.citing()},
    total=(int, ...),
)


@router.get("/stale", response=StaleOut)
def stale_counts(request: HttpRequest):
    """Each kind's parts citing a chunk that re-ingestion retired (questions, cards, lessons,
    mindmap nodes); each item refreshes its own at POST .../{id}/refresh."""
    return stale.counts(request.auth)
