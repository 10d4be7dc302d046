"""Model output as HTML (chat answers, workshop lessons): Markdown rendered by markdown-it-py,
then sanitised by nh3.

The model's text is untrusted (it may quote a document that contains HTML or script), so raw
HTML in it is escaped by the renderer and whatever HTML results is cleaned by an allow-list.
Images are dropped: loading one would be a request to wherever the text points.
"""

import re

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
_markdown.disable("image")

ALLOWED_TAGS = {
    "p",
    "br",
    "hr",
    "strong",
    "em",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "a",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "del",
}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "th": {"align"}, "td": {"align"}}
_CITATION = re.compile(r"\[(\d{1,2})\](?!\()")


def render_markdown(text: str, *, sources_anchor: str = "") -> SafeString:
    """Sanitised HTML for `text`; `[n]` becomes a link to source n when an anchor is given."""
    if sources_anchor:
        text = _CITATION.sub(
            lambda m: f"[\\[{m.group(1)}\\]](#{sources_anchor}-{m.group(1)})", text
        )
    html = _markdown.render(text or "")
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )
    return mark_safe(clean)  # nh3 has just removed everything outside the allow-list
