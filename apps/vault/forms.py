"""Forms of the Knowledge Base pages, and the document pickers other apps' forms use."""

import contextlib
import hashlib
import logging

import redis
from django import forms
from django.core.cache import cache

from apps.vault.models import Category, Document
from apps.vault.scope import MAX_ID, Scope

log = logging.getLogger(__name__)

# --- Document pickers ------------------------------------------------------------------------

RENDERED_SECONDS = 24 * 3600


class RenderedOnce:
    """A choice widget for a whole vault's documents (a thousand checkboxes or options): Django
    renders each option through a template of its own, ~0.1 ms apiece, so the HTML is kept in
    the cache (Redis, shared by the web processes) under a digest of everything it shows: each
    document's id and file name (its label), the selection and the attributes. A changed vault
    is a new digest, so nothing is ever invalidated by hand."""

    def render(self, name, value, attrs=None, renderer=None):
        shown = list(self.choices.queryset.values_list("pk", "filename"))
        digest = hashlib.sha256(
            repr((type(self).__name__, name, value, attrs, self.attrs, shown)).encode()
        ).hexdigest()
        key = f"widget:{digest}"
        try:
            html = cache.get(key)
        except redis.RedisError as error:  # Redis down: slower, not broken (health says so)
            log.warning("document picker not cached: %s", error)
            return super().render(name, value, attrs, renderer)
        if html is None:
            html = super().render(name, value, attrs, renderer)
            with contextlib.suppress(redis.RedisError):
                cache.set(key, html, RENDERED_SECONDS)
        return html


class DocumentCheckboxes(RenderedOnce, forms.CheckboxSelectMultiple):
    pass


class DocumentSelect(RenderedOnce, forms.SelectMultiple):
    pass


class KeyChoices(forms.ModelMultipleChoiceField):
    """Rows chosen by primary key, where a key past the database's integer range is refused as
    any unknown one: querying it would fail (SQLite: OverflowError) and answer a 500."""

    def clean(self, value):
        for key in value if isinstance(value, list | tuple) else ():
            with contextlib.suppress(TypeError, ValueError):
                if abs(int(key)) > MAX_ID:
                    raise forms.ValidationError(
                        self.error_messages["invalid_choice"],
                        code="invalid_choice",
                        params={"value": key},
                    )
        return super().clean(value)


def pickable(documents):
    """Only what a picker shows: its choices are the primary key and the file name."""
    return documents.only("pk", "filename").order_by("filename")


# --- Search (retrieval) ----------------------------------------------------------------------


class SearchForm(forms.Form):
    q = forms.CharField(label="Search", max_length=1000, strip=True)
    category = KeyChoices(label="Categories", queryset=Category.objects.all(), required=False)
    document = KeyChoices(
        label="Documents", queryset=Document.objects.none(), required=False, widget=DocumentSelect
    )

    def __init__(self, *args, user, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["document"].queryset = pickable(
            Document.objects.visible_to(user).filter(status=Document.Status.DONE)
        )

    @property
    def scope(self) -> Scope:
        return Scope(
            [category.pk for category in self.cleaned_data["category"]],
            [document.pk for document in self.cleaned_data["document"]],
        )
