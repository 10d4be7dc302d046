from django import forms

from apps.study.flashcards.models import Card, Deck
from apps.study.forms import ScopeForm


class DeckGenerateForm(ScopeForm):
    num_cards = forms.TypedChoiceField(
        label="Cards", choices=[(n, n) for n in Deck.SIZES], coerce=int, initial=20
    )

    field_order = ["num_cards", "categories", "documents"]


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


class DeckImportForm(forms.Form):
    file = forms.FileField(
        label="Anki package or CSV file",
        help_text="An Anki deck (.apkg, up to 20 MB), or a UTF-8 CSV with two columns, front "
        "and back (comma, semicolon or tab).",
        error_messages={"required": "Choose an .apkg or CSV file."},
    )
