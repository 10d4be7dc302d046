from django import forms
from django.db.models import BigIntegerField

from apps.study.classsets.models import ClassSet


class HandOutForm(forms.Form):
    kind = forms.ChoiceField(choices=ClassSet.Kind.choices)
    item = forms.IntegerField(min_value=1, max_value=BigIntegerField.MAX_BIGINT)
    note = forms.CharField(label="Note (optional)", max_length=500, required=False)
    due = forms.DateField(
        label="Due (optional)", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
