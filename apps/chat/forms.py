"""Forms of the chat pages: renaming a thread, and the composer's files to ask within."""

from django import forms

from apps.chat.models import Thread
from apps.vault.forms import DocumentSelect, pickable
from apps.vault.models import Document


class RenameForm(forms.ModelForm):
    class Meta:
        model = Thread
        fields = ["title"]

    def clean_title(self) -> str:
        title = " ".join(self.cleaned_data["title"].split())
        if not title:
            raise forms.ValidationError("A title cannot be empty.")
        return title


class ComposerFiles(forms.Form):
    """The composer's list of files (the socket reads the chosen `document_ids`): the whole
    vault, so it is rendered once per distinct list of files (DocumentSelect). It is folded
    away outside the question's form and belongs to it by its `form` attribute."""

    document_ids = forms.ModelMultipleChoiceField(
        queryset=Document.objects.none(),
        required=False,
        widget=DocumentSelect(attrs={"size": 4, "form": "ask-form"}),
    )

    def __init__(self, *args, user, **kwargs) -> None:
        super().__init__(*args, auto_id=False, **kwargs)
        self.fields["document_ids"].queryset = pickable(Document.objects.visible_to(user))
