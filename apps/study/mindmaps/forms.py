from django import forms

from apps.study.forms import ScopeForm
from apps.study.mindmaps.models import Mindmap


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


class MindmapLayoutForm(forms.Form):
    layout = forms.ChoiceField(choices=Mindmap.Layout.choices)


class NodeForm(forms.Form):
    node = forms.CharField(max_length=40)


class NodePositionForm(NodeForm):
    layout = forms.ChoiceField(choices=Mindmap.Layout.choices)
    x = forms.FloatField(min_value=-100_000, max_value=100_000)
    y = forms.FloatField(min_value=-100_000, max_value=100_000)


class MindmapTitleForm(forms.Form):
    title = forms.CharField(max_length=200)
