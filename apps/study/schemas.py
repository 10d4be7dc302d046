"""The scope every generating API route of the Study Hub reads, and what they answer when
generation fails."""

from typing import Any, Literal

from ninja import Field, Schema

from apps.accounts.api import ErrorOut, Id
from apps.study import generator

# apps/study/errors.py: an empty scope 400, an answer with nothing usable 502, a model that is
# down 503. (A route that starts a generation lists the rate limit's 429 itself: not all do.)
GENERATION_ERRORS = {400: ErrorOut, 502: ErrorOut, 503: ErrorOut}


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
    # The short forms of SPEC §10's table: one category, several documents.
    category: Id | None = None
    documents: list[Id] = Field(default_factory=list, max_length=500)
    # Not said: extractive when the embedded model answers, else the model.
    method: Literal["model", "extractive"] | None = None
    # A teacher's: hand what is made to the class at once (anyone else gets a 403).
    for_class: bool = False

    @property
    def scope(self) -> generator.Scope:
        categories = self.category_ids + ([self.category] if self.category else [])
        return generator.Scope(categories, self.document_ids + self.documents)
