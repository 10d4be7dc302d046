from django import forms

from apps.study.generator import Scope
from apps.study.models import Difficulty, Quiz, Workshop
from apps.vault.models import Category, Document


class ScopeForm(forms.Form):
    """Categories and/or documents to draw from; none chosen means the whole vault."""

    categories = forms.ModelMultipleChoiceField(
        queryset=Category.objects.none(), required=False, widget=forms.CheckboxSelectMultiple
    )
    documents = forms.ModelMultipleChoiceField(
        queryset=Document.objects.none(), required=False, widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, *args, user, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["categories"].queryset = Category.objects.all()
        self.fields["documents"].queryset = Document.objects.visible_to(user).order_by("filename")

    @property
    def scope(self) -> Scope:
        return Scope(
            category_ids=[category.pk for category in self.cleaned_data["categories"]],
            document_ids=[document.pk for document in self.cleaned_data["documents"]],
        )


class QuizForm(ScopeForm):
    num_questions = forms.TypedChoiceField(
        label="Questions", choices=[(n, n) for n in Quiz.SIZES], coerce=int, initial=10
    )
    difficulty = forms.ChoiceField(choices=Difficulty.choices, initial=Difficulty.INTERMEDIATE)
    types = forms.MultipleChoiceField(
        label="Question types",
        choices=[("mcq", "Multiple choice"), ("true_false", "True / false")],
        initial=["mcq", "true_false"],
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": "Choose at least one question type."},
    )

    field_order = ["num_questions", "difficulty", "types", "categories", "documents"]


class WorkshopForm(ScopeForm):
    num_lessons = forms.TypedChoiceField(
        label="Lessons", choices=[(n, n) for n in Workshop.SIZES], coerce=int, initial=5
    )

    field_order = ["num_lessons", "categories", "documents"]
