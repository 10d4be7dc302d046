"""A student's storage quota (docs/classroom.md#lockout-quotas-and-rate-limits): the bytes of
their vault documents and chat attachments, and the characters of their decks, mindmaps,
workshops and quizzes (apps/study/quota.py), counted together in one query."""

from django.conf import settings
from django.db.models import OuterRef, Subquery, Sum, TextField, Value
from django.db.models.functions import Cast, Coalesce, Length
from django.template.defaultfilters import filesizeformat

# What each of a person's own kinds of rows counts: their files' bytes, their items' text.
COUNTED = {
    "documents": ("size_bytes",),
    "chat_attachments": ("size_bytes",),
    "decks": ("cards__front", "cards__back", "cards__pictures"),
    "mindmaps": ("tree",),
    "workshops": ("lessons__summary", "lessons__content"),
    "quizzes": (
        "questions__text",
        "questions__options",
        "questions__explanation",
        "questions__pictures",
    ),
}


class StorageQuota:
    """The quota's methods of User."""

    @property
    def quota_bytes(self) -> int | None:
        """None: no limit (teachers, or STUDENT_QUOTA_MB=0)."""
        if self.is_teacher or settings.STUDENT_QUOTA_MB <= 0:
            return None
        return settings.STUDENT_QUOTA_MB * 1024 * 1024

    def stored_bytes(self) -> int:
        totals = {
            f"{name}_total": _total(getattr(self, name), fields) for name, fields in COUNTED.items()
        }
        row = type(self).objects.filter(pk=self.pk).annotate(**totals).values(*totals).get()
        return sum(row.values())

    def room_bytes(self, freed: int = 0) -> int | None:
        """Bytes this person may still store (after `freed` bytes are replaced), None: any."""
        if self.quota_bytes is None:
            return None
        return max(self.quota_bytes - self.stored_bytes() + freed, 0)

    def lock_storage(self) -> None:
        """Inside a transaction: uploads of this person's that end at the same moment wait for
        each other's transaction here, so each counts what the others stored. A row lock on
        PostgreSQL; on SQLite every write transaction already waits for the one before
        (IMMEDIATE, docs/deployment.md)."""
        list(type(self).objects.select_for_update().filter(pk=self.pk).values_list("pk"))

    def over_quota_message(self, name: str) -> str:
        return (
            f"{name}: this would go over your storage quota of "
            f"{filesizeformat(self.quota_bytes)} ({filesizeformat(self.stored_bytes())} used). "
            "Delete documents or study items you no longer need, or ask your teacher."
        )


def _total(related, fields: tuple[str, ...]) -> Coalesce:
    """The sum over a person's rows of `related` (a reverse manager): a number field as it is,
    text and JSON as their length in characters."""
    counted = Value(0)
    for field in fields:
        value = field if field == "size_bytes" else Length(Cast(field, TextField()))
        counted += Coalesce(value, 0)
    owner = related.field.name
    rows = related.model.objects.filter(**{owner: OuterRef("pk")}).values(owner)
    return Coalesce(Subquery(rows.annotate(total=Sum(counted)).values("total")), 0)
