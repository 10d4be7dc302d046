"""A scope: the categories and documents a search or a generator draws from.

A document is in scope when it is in any chosen category or among the chosen documents (none
chosen: the whole vault), and only ever among the documents the asker may see. Input from a
form, the API or the socket becomes a Scope in `Scope.from_input`; search, the chat, its tools
and the study generators ask the Scope for its documents instead of filtering on their own.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import BigIntegerField, Q

from apps.vault.errors import ScopeError
from apps.vault.models import Category, Document, DocumentQuerySet

MAX_ID = BigIntegerField.MAX_BIGINT  # the database's largest key; a bigger number names nothing


@dataclass(frozen=True)
class Scope:
    category_ids: tuple[int, ...] = ()
    document_ids: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        # Lists, sets and repeats become one sorted tuple, so equal scopes compare equal.
        object.__setattr__(self, "category_ids", tuple(sorted(set(self.category_ids))))
        object.__setattr__(self, "document_ids", tuple(sorted(set(self.document_ids))))

    @classmethod
    def from_input(cls, category_ids=None, document_ids=None) -> "Scope":
        """From what a person sent (form, API or socket): nothing, one id or a list of ids,
        as numbers or digit strings. Raises ScopeError for anything else."""
        return cls(_parse(category_ids, "category"), _parse(document_ids, "document"))

    @property
    def is_whole_vault(self) -> bool:
        return not self.category_ids and not self.document_ids

    def as_dict(self) -> dict[str, list[int]]:
        return {"category_ids": list(self.category_ids), "document_ids": list(self.document_ids)}

    def categories(self) -> list[Category]:
        """The chosen categories; ScopeError names one that does not exist."""
        if not self.category_ids:  # the usual case; even an empty query costs ~1 ms to build
            return []
        found = list(Category.objects.filter(pk__in=self.category_ids))
        _refuse_missing("category", self.category_ids, found)
        return found

    def chosen_documents(self, user) -> list[Document]:
        """The chosen documents; ScopeError names one the user cannot see (or that does not
        exist: the two are not told apart)."""
        if not self.document_ids:
            return []
        found = list(Document.objects.visible_to(user).filter(pk__in=self.document_ids))
        _refuse_missing("document", self.document_ids, found)
        return found

    def documents(self, user) -> DocumentQuerySet:
        """Every document in scope that the user may see, ingested or not."""
        self.categories()
        self.chosen_documents(user)
        documents = Document.objects.visible_to(user)
        if self.is_whole_vault:
            return documents
        return documents.filter(Q(category_id__in=self.category_ids) | Q(id__in=self.document_ids))

    def searchable(self, user) -> DocumentQuerySet:
        """The documents in scope whose ingestion is done: what search serves."""
        return self.documents(user).filter(status=Document.Status.DONE)


WHOLE_VAULT = Scope()


def _parse(value, kind: str) -> list[int]:
    if value in (None, ""):
        return []
    values = value if isinstance(value, list | tuple) else [value]
    numbers = []
    for item in values:
        if isinstance(item, str) and not item.strip():
            continue  # an empty form field
        try:
            if isinstance(item, bool | float):
                raise TypeError(item)  # int() would take them: true is 1, 2.7 is 2
            number = int(item)
        except (TypeError, ValueError):
            raise ScopeError("The scope must name categories and documents by their ids.") from None
        numbers.append(number)
    for number in numbers:
        if not 0 < number <= MAX_ID:
            raise ScopeError(f"No such {kind}: {number}.")
    return numbers


def _refuse_missing(kind: str, wanted: Iterable[int], found: list) -> None:
    missing = set(wanted) - {row.pk for row in found}
    if missing:
        raise ScopeError(f"No such {kind}: {min(missing)}.")
