from django import forms

from apps.study.generator import Scope
from apps.study.models import Card, Deck, Difficulty, Mindmap, Quiz, Workshop
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


# --- Flashcards and mindmaps ---------------------------------------------------------------


class DeckGenerateForm(ScopeForm):
    num_cards = forms.TypedChoiceField(
        label="Cards", choices=[(n, n) for n in Deck.SIZES], coerce=int, initial=20
    )

    field_order = ["num_cards", "categories", "documents"]


class MindmapGenerateForm(ScopeForm):
    title = forms.CharField(label="Central topic (optional)", max_length=200, required=False)

    field_order = ["title", "categories", "documents"]


class DeckTitleForm(forms.Form):
    title = forms.CharField(max_length=200, error_messages={"required": "Give the deck a name."})


class CardForm(forms.Form):
    front = forms.CharField(
        max_length=Card.MAX_SIDE,
        widget=forms.Textarea(attrs={"rows": 2}),
        error_messages={"required": "The front of a card cannot be empty."},
    )
    back = forms.CharField(
        max_length=Card.MAX_SIDE,
        widget=forms.Textarea(attrs={"rows": 2}),
        error_messages={"required": "The back of a card cannot be empty."},
    )


class NewDeckForm(DeckTitleForm, CardForm):
    """A hand-made deck starts with its first card."""


class CsvImportForm(forms.Form):
    file = forms.FileField(
        help_text="UTF-8 CSV with two columns, front and back (comma, semicolon or tab).",
        error_messages={"required": "Choose a CSV file."},
    )


class ReviewForm(forms.Form):
    outcome = forms.ChoiceField(choices=[("got_it", "Got it"), ("review", "Review")])


class MindmapOutlineForm(forms.Form):
    title = forms.CharField(max_length=200, required=False)
    outline = forms.CharField(
        max_length=50_000,
        widget=forms.Textarea(attrs={"rows": 8, "placeholder": "# Topic\n- Idea\n  - Detail"}),
        help_text="A Markdown outline: `# Root`, then nested `- bullets` (up to 4 levels).",
        error_messages={"required": "Paste an outline."},
    )


class MindmapLayoutForm(forms.Form):
    layout = forms.ChoiceField(choices=Mindmap.Layout.choices)


class NodeForm(forms.Form):
    node = forms.CharField(max_length=40)


class NodePositionForm(NodeForm):
    layout = forms.ChoiceField(choices=Mindmap.Layout.choices)
    x = forms.FloatField(min_value=-100_000, max_value=100_000)
    y = forms.FloatField(min_value=-100_000, max_value=100_000)


# --- end of flashcards and mindmaps ---------------------------------------------------------
