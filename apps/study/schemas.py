"""The scope every generating API route of the Study Hub reads."""

from typing import Literal

from ninja import Field, Schema

from apps.study import generator


class RefreshOut(Schema):
    """What refreshing the items whose source changed did, and how many are still stale."""

    refreshed: int
    stale: int


class ScopeIn(Schema):
    category_ids: list[int] = Field(default_factory=list, max_length=100)
    document_ids: list[int] = Field(default_factory=list, max_length=500)
    # The short forms of SPEC §10's table: one category, several documents.
    category: int | None = None
    documents: list[int] = Field(default_factory=list, max_length=500)
    # Not said: extractive when the embedded model answers, else the model.
    method: Literal["model", "extractive"] | None = None

    @property
    def scope(self) -> generator.Scope:
        categories = self.category_ids + ([self.category] if self.category else [])
        return generator.Scope(categories, self.document_ids + self.documents)
