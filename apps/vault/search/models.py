"""What the search index needs of the database besides the chunks: the generation of the set of
live chunks, and the change journal that says which documents to read again since one."""

from django.db import models, transaction
from django.db.models import F


class IndexState(models.Model):
    """One row: a counter bumped in every transaction that changes the set of live chunks (made
    live, retired, deleted), so the index generation moves together with the rows.

    The on-disk index remembers the generation it was built at; the change journal
    (IndexChange) says which documents it must read again to catch up.
    """

    generation = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return f"generation {self.generation}"

    @classmethod
    def current(cls) -> int:
        state = cls.objects.filter(pk=1).first()
        return state.generation if state else 0

    @classmethod
    def bump(cls, *documents: int) -> None:
        """Move the generation on and note which documents' chunks changed (none named:
        anything may have changed, and the index compares every chunk)."""
        with transaction.atomic():
            cls.objects.get_or_create(pk=1)
            cls.objects.filter(pk=1).update(generation=F("generation") + 1)
            # Read back under the row's lock: journal rows commit in generation order.
            generation = cls.objects.filter(pk=1).values_list("generation", flat=True).get()
            IndexChange.objects.bulk_create(
                IndexChange(generation=generation, document_id=document)
                for document in (set(documents) or [None])
            )


class IndexChange(models.Model):
    """The change journal: the documents whose live chunks changed at a generation (a deleted
    document stays named: no foreign key). A row without a document means any may have. Rows
    the stored index has read are deleted when it is saved (apps/vault/search/live.py)."""

    generation = models.PositiveBigIntegerField(db_index=True)
    document_id = models.BigIntegerField(null=True)

    def __str__(self) -> str:
        return f"generation {self.generation}: document {self.document_id}"
