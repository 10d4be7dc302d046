from django import forms

from apps.chat.models import Thread


class RenameForm(forms.ModelForm):
    class Meta:
        model = Thread
        fields = ["title"]

    def clean_title(self) -> str:
        title = " ".join(self.cleaned_data["title"].split())
        if not title:
            raise forms.ValidationError("A title cannot be empty.")
        return title
