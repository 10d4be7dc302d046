"""The scope every generating API route of the Study Hub reads, and what they answer when
generation fails."""

from typing import Annotated, Any, Literal

from ninja import Field, Header, Schema

from apps.accounts.api import ErrorOut, Id
from apps.study import generator

# apps/study/errors.py: an empty scope 400, an answer with nothing usable 502, a model that is
# down 503. (A route that starts a generation lists the rate limit's 429 itself: not all do.)
GENERATION_ERRORS = {400: ErrorOut, 502: ErrorOut, 503: ErrorOut}
# What a generating POST answers at once, before anything is queued: an empty scope 400,
# `for_class` from anyone but a teacher 403, a `class_id` they do not teach 404, a teacher of
# several classes naming none 422, the rate limit 429. What the worker meets (a model down or
# answering garbage) is the item's `error` once its `status` is failed.
STARTING_ERRORS = {
    400: ErrorOut,
    403: ErrorOut,
    404: ErrorOut,
    413: ErrorOut,
    422: ErrorOut,
    429: ErrorOut,
}


GenerationStatus = Literal["generating", "ready", "failed"]

# Optional on every generating POST: a call retried with the same key (per person and kind)
# answers with the item the first call started instead of starting another; the key sent with
# another request is a 422 (apps/study/starting.py).
IdempotencyKey = Annotated[
    str,
    Header(
        "",
        alias="Idempotency-Key",
        max_length=100,
        description="Repeat it on a retry: the item the first call started comes back. "
        "Sent with a different request, it is refused (422).",
    ),
]


class StartedOut(Schema):
    """A generation a worker makes: GET the item by its id until `status` is ready (or
    failed, with `error`)."""

    id: Id
    status: GenerationStatus


def checked_by_the_rule(**constraints: Any) -> Any:
    """Limits the schema shows clients (`enum`, `maximum`, ...) while the study rule itself
    checks them, so the page and the API refuse a value with one message (a 422 here)."""
    return Field(json_schema_extra=constraints)


class RefreshOut(Schema):
    """What refreshing the items whose source changed did, and how many are still stale."""

    refreshed: int
    stale: int


class ScopeIn(Schema):
    category_ids: list[Id] = Field(default_factory=list, max_length=100)
    document_ids: list[Id] = Field(default_factory=list, max_length=500)
    # The short forms docs/api.md lists beside the scope: one category, several documents.
    category: Id | None = None
    documents: list[Id] = Field(default_factory=list, max_length=500)
    # Not said: extractive when the embedded model answers, else the model.
    method: Literal["model", "extractive"] | None = None
    # A teacher's: hand the item to a class at once (`class_id`, optional while they teach
    # one); its students see it once it is ready (anyone else gets a 403).
    for_class: bool = False
    class_id: Id | None = None

    @property
    def scope(self) -> generator.Scope:
        categories = self.category_ids + ([self.category] if self.category else [])
        return generator.Scope(categories, self.document_ids + self.documents)
