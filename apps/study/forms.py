"""The scope every "make it from your documents" form of the Study Hub shares."""

import uuid

from django import forms
from django.forms.renderers import Jinja2

from apps.classes.models import SchoolClass
from apps.llm import gateway
from apps.study.generator import Scope
from apps.vault.forms import DocumentCheckboxes, KeyChoices, pickable
from apps.vault.models import Category, Document

# Every Study Hub tab draws its generate form: with Django's template engine its widgets (a
# template per option) took 4.5–5.5 ms of the page, with Django's Jinja2 widget templates (the
# same HTML) 2.7–3 ms. One renderer for all of them, so Jinja2 compiles each template once.
WIDGETS = Jinja2()


class ScopeForm(forms.Form):
    """Categories and/or documents to draw from; none chosen means the whole vault."""

    default_renderer = WIDGETS

    categories = KeyChoices(
        queryset=Category.objects.none(), required=False, widget=forms.CheckboxSelectMultiple
    )
    documents = KeyChoices(
        queryset=Document.objects.none(), required=False, widget=DocumentCheckboxes
    )

    method = forms.ChoiceField(
        label="Made by",
        required=False,
        choices=[
            ("", "Automatic (from the text when no large model answers)"),
            ("model", "The language model"),
            ("extractive", "From the text itself (no model)"),
        ],
    )

    for_class = forms.TypedChoiceField(
        label="For a class: hand it out to its students once it is made",
        required=False,
        coerce=int,
        empty_value=None,
    )
    # A fresh token each time the form is shown: the same form sent twice (a double click, the
    # back button) finds the item the first send started instead of starting another.
    token = forms.CharField(widget=forms.HiddenInput, required=False, max_length=100)

    def __init__(self, *args, user, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial["token"] = uuid.uuid4().hex
        if not gateway.current_backend().faithful:
            # Only the small embedded model answers now: what it writes may be false.
            model = "The small embedded model (what it writes may be wrong: check each item)"
            self.fields["method"].choices = [
                (value, model if value == "model" else label)
                for value, label in self.fields["method"].choices
            ]
        self.fields["categories"].queryset = Category.objects.all()
        self.fields["documents"].queryset = pickable(Document.objects.visible_to(user))
        self.taught = {c.pk: c for c in SchoolClass.objects.taught_by(user)}
        if self.taught:
            choices = [(pk, c.name) for pk, c in self.taught.items()]
            self.fields["for_class"].choices = [("", "No class: just for me"), *choices]
        else:
            del self.fields["for_class"]

    @property
    def hand_out_to(self) -> SchoolClass | None:
        """The class it is handed out to once made, one the teacher teaches; or none."""
        return self.taught.get(self.cleaned_data.get("for_class"))

    @property
    def key(self) -> str:
        return self.cleaned_data.get("token") or ""

    def renew_token(self) -> None:
        """Shown again with a fresh token: sent, it is a new request."""
        self.data = self.data.copy()
        self.data["token"] = uuid.uuid4().hex

    @property
    def chosen_method(self) -> str | None:
        return self.cleaned_data.get("method") or None

    @property
    def scope(self) -> Scope:
        return Scope(
            category_ids=[category.pk for category in self.cleaned_data["categories"]],
            document_ids=[document.pk for document in self.cleaned_data["documents"]],
        )
