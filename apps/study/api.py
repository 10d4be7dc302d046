"""Study Hub routes that span its features: how many items' sources changed. Mounted at
/api/v1/study/ beside the feature routers."""

from django.http import HttpRequest
from ninja import Router, Schema

from apps.study import stale

router = Router(tags=["study"])


class StaleOut(Schema):
    questions: int
    cards: int
    lessons: int
    nodes: int
    total: int


@router.get("/stale", response=StaleOut)
def stale_counts(request: HttpRequest):
    """Questions, cards, lessons and mindmap nodes citing a chunk that re-ingestion retired;
    each quiz, deck, workshop and mindmap refreshes its own at POST .../{id}/refresh."""
    return stale.counts(request.auth)
