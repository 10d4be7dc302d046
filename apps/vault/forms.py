"""Forms of the Knowledge Base pages."""

from django import forms

from apps.vault.models import Category, Document
from apps.vault.scope import Scope

# --- Search (retrieval) ----------------------------------------------------------------------


class SearchForm(forms.Form):
    q = forms.CharField(label="Search", max_length=1000, strip=True)
    category = forms.ModelMultipleChoiceField(
        label="Categories", queryset=Category.objects.all(), required=False
    )
    document = forms.ModelMultipleChoiceField(
        label="Documents", queryset=Document.objects.none(), required=False
    )

    def __init__(self, *args, user, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["document"].queryset = (
            Document.objects.visible_to(user)
            .filter(status=Document.Status.DONE)
            .order_by("filename")
        )

    @property
    def scope(self) -> Scope:
        return Scope(
            [category.pk for category in self.cleaned_data["category"]],
            [document.pk for document in self.cleaned_data["document"]],
        )
