from django import template
from django.urls import NoReverseMatch, reverse

from apps.llm.rendering import render_markdown

register = template.Library()


@register.filter
def markdown(text: str, message_id: int | None = None):
    """Sanitised HTML; with a message id, `[n]` links to that answer's source n."""
    return render_markdown(text, sources_anchor=f"source-{message_id}" if message_id else "")


@register.filter
def source_url(citation: dict) -> str:
    """The cited document in the vault, a PDF opened at the cited page."""
    try:
        url = reverse("vault:document", args=[citation.get("document_id")])
    except NoReverseMatch:
        return reverse("vault:index")
    filename, page = str(citation.get("filename") or ""), citation.get("page")
    if filename.lower().endswith(".pdf") and page:
        url += f"#page={page}"
    return url
