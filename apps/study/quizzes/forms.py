from django import forms

from apps.study.forms import ScopeForm
from apps.study.quizzes.models import Difficulty, Quiz


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


class QuizImportForm(forms.Form):
    file = forms.FileField(
        label="Question bank",
        help_text="Moodle XML, GIFT, or an IMS QTI 2.1 package (.zip), up to 20 MB: multiple "
        "choice with one right answer and true or false questions are kept.",
        error_messages={"required": "Choose a Moodle XML, GIFT or QTI file."},
    )
