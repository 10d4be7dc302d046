from django import template

from apps.llm.rendering import render_markdown

register = template.Library()


@register.filter
def markdown(text: str, message_id: int | None = None):
    """Sanitised HTML; with a message id, `[n]` links to that answer's source n."""
    return render_markdown(text, sources_anchor=f"source-{message_id}" if message_id else "")
