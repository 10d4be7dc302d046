from django import forms

from apps.classes.models import MAX_NAME_LENGTH


class ClassForm(forms.Form):
    name = forms.CharField(
        max_length=MAX_NAME_LENGTH,
        strip=True,
        widget=forms.TextInput(attrs={"placeholder": "7b Biology"}),
        error_messages={"required": "Give the class a name."},
    )


class JoinForm(forms.Form):
    code = forms.CharField(
        max_length=20,
        label="Class code",
        widget=forms.TextInput(attrs={"autocomplete": "off", "autocapitalize": "characters"}),
        error_messages={"required": "Type the code your teacher shows."},
    )


class UsernameForm(forms.Form):
    username = forms.CharField(max_length=150, label="Teacher's username")
