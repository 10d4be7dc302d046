from django import forms

from apps.study.models import Card, Mindmap

# --- Flashcards and mindmaps ---------------------------------------------------------------


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
