"""Vault rows without files: a category, a document of someone's."""

from apps.accounts.models import User
from apps.vault.models import Category, Document


def make_category(name: str = "Biology") -> Category:
    return Category.objects.create(name=name)


def make_document(owner: User, filename: str = "notes.txt", **fields) -> Document:
    fields.setdefault("scope", Document.Scope.PERSONAL)
    fields.setdefault("format", filename.rsplit(".", 1)[-1])
    fields.setdefault("sha256", "0" * 64)
    fields.setdefault("stored_name", f"{owner.pk}-{filename}")
    return Document.objects.create(owner=owner, filename=filename, **fields)
