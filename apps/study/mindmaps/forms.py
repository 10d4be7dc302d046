from django import forms

from apps.study.forms import ScopeForm


class MindmapGenerateForm(ScopeForm):
    title = forms.CharField(label="Central topic (optional)", max_length=200, required=False)

    field_order = ["title", "categories", "documents"]


class MindmapOutlineForm(forms.Form):
    title = forms.CharField(max_length=200, required=False)
    outline = forms.CharField(
        max_length=50_000,
        widget=forms.Textarea(attrs={"rows": 8, "placeholder": "# Topic\n- Idea\n  - Detail"}),
        help_text="A Markdown outline: `# Root`, then nested `- bullets` (up to 4 levels).",
        error_messages={"required": "Paste an outline."},
    )


class NodePositionForm(forms.Form):
    """Reads the numbers; the mindmap itself says which nodes, layouts and places exist."""

    node = forms.CharField(max_length=40)
    layout = forms.CharField(max_length=10)
    x = forms.FloatField()
    y = forms.FloatField()
