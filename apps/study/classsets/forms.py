from django import forms
from django.db.models import BigIntegerField

from apps.study import kinds
from apps.study.classsets.models import MAX_ATTEMPTS
from apps.study.classsets.policy import Grading, Marks, Reveal


class HandOutForm(forms.Form):
    kind = forms.ChoiceField(
        choices=lambda: [(kind.name, kind.name) for kind in kinds.handed_out()]
    )
    item = forms.IntegerField(min_value=1, max_value=BigIntegerField.MAX_BIGINT)
    # One of the teacher's classes; left out while they teach one.
    school_class = forms.IntegerField(
        min_value=1, max_value=BigIntegerField.MAX_BIGINT, required=False
    )
    note = forms.CharField(label="Note (optional)", max_length=500, required=False)
    due = forms.DateField(
        label="Due (optional)", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    # A quiz's policy; the other kinds ignore it.
    attempts = forms.IntegerField(
        label="Attempts allowed", min_value=1, max_value=MAX_ATTEMPTS, required=False, initial=1
    )
    unlimited = forms.BooleanField(label="Unlimited attempts", required=False)
    grading = forms.ChoiceField(choices=Grading.choices, initial=Grading.FIRST, required=False)
    reveal = forms.ChoiceField(
        label="Show the answers", choices=Reveal.choices, initial=Reveal.AFTER_DUE, required=False
    )
    # Left empty: the marks' default for the attempts allowed (policy.default_marks).
    marks = forms.ChoiceField(label="Show the marks", choices=Marks.choices, required=False)

    def policy(self) -> dict:
        data = self.cleaned_data
        return {
            "attempts": None if data["unlimited"] else (data["attempts"] or 1),
            "grading": data["grading"] or Grading.FIRST,
            "reveal": data["reveal"] or Reveal.AFTER_DUE,
            "marks": data["marks"] or None,
        }
