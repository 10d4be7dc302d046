"""Model output as HTML (chat answers, workshop lessons): Markdown rendered by markdown-it-py,
then sanitised by nh3.

The model's text is untrusted (it may quote a document that contains HTML or script), so raw
HTML in it is escaped by the renderer and whatever HTML results is cleaned by an allow-list.
Rendering an answer makes the browser fetch nothing: images are dropped (loading one would be a
request to wherever the text points) and no tag that loads anything is allowed. A link to another
host shows where it goes next to its text, and opens in a new tab without an opener or referrer.
"""

import re
from urllib.parse import urlsplit

import nh3
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
_markdown.disable("image")

SHOWN_TARGET_LENGTH = 80


def _is_external(href: str) -> bool:
    parts = urlsplit(href)
    return bool(parts.netloc) or parts.scheme not in ("", "http", "https")


def _render_link_open(self, tokens, idx, options, env) -> str:
    token = tokens[idx]
    href = token.attrGet("href") or ""
    shown = None
    if _is_external(href):
        token.attrSet("target", "_blank")
        # The text of a link can say anything; its real target is printed after it.
        text = "".join(t.content for t in tokens[idx + 1 : idx + 2] if t.type == "text")
        if text.strip() != href:
            shown = href
    env.setdefault("link_targets", []).append(shown)
    return self.renderToken(tokens, idx, options, env)


def _render_link_close(self, tokens, idx, options, env) -> str:
    html = self.renderToken(tokens, idx, options, env)
    shown = env.get("link_targets", [None]).pop()
    if shown:
        if len(shown) > SHOWN_TARGET_LENGTH:
            shown = shown[: SHOWN_TARGET_LENGTH - 1] + "…"
        html += f' <span class="link-target">({escape(shown)})</span>'
    return html


_markdown.add_render_rule("link_open", _render_link_open)
_markdown.add_render_rule("link_close", _render_link_close)

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
    "span",
}
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title", "target"},
    "ol": {"start"},
    "th": {"align"},
    "td": {"align"},
}
ALLOWED_CLASSES = {"span": {"link-target"}}
_CITATION = re.compile(r"\[(\d{1,2})\](?!\()")


def _only_blank_targets(tag: str, attribute: str, value: str) -> str | None:
    return None if attribute == "target" and value != "_blank" else value


def render_markdown(text: str, *, sources_anchor: str = "") -> SafeString:
    """Sanitised HTML for `text`; `[n]` becomes a link to source n when an anchor is given."""
    if sources_anchor:
        text = _CITATION.sub(
            lambda m: f"[\\[{m.group(1)}\\]](#{sources_anchor}-{m.group(1)})", text
        )
    html = _markdown.render(text or "", {})
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        allowed_classes=ALLOWED_CLASSES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
        attribute_filter=_only_blank_targets,
    )
    return mark_safe(clean)  # nh3 has just removed everything outside the allow-list
