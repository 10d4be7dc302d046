from django import forms

from apps.study.forms import ScopeForm
from apps.study.workshops.models import Workshop


class WorkshopForm(ScopeForm):
    num_lessons = forms.TypedChoiceField(
        label="Lessons", choices=[(n, n) for n in Workshop.SIZES], coerce=int, initial=5
    )

    field_order = ["num_lessons", "categories", "documents"]
