"""Every page carries a Content-Security-Policy that allows no inline script, and nothing a page
loads or links to leaves this server."""

import re
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest
from django.http import HttpResponse
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from apps.chat.models import Thread
from apps.study.mindmaps.models import Mindmap

pytestmark = pytest.mark.django_db
INLINE_HANDLER = re.compile(r"^on[a-z]+$")


def plain_paths(patterns=None, prefix: str = "") -> list[str]:
    """Every URL of the app that takes no argument (the admin has its own list)."""
    found = []
    for pattern in patterns if patterns is not None else get_resolver().url_patterns:
        route = prefix + str(pattern.pattern)
        if "<" in route or route.startswith("admin/"):
            continue
        if isinstance(pattern, URLResolver):
            found += plain_paths(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            found.append("/" + route)
    return sorted(set(found))


def pages_for(client: Client, extra: list[str]) -> dict[str, HttpResponse]:
    """The HTML pages this person gets from a GET of every plain URL (and `extra`)."""
    pages = {}
    for path in [*plain_paths(), *extra]:
        response = client.get(path)
        if response.status_code == 200 and response["Content-Type"].startswith("text/html"):
            pages[path] = response
    return pages


class Elements(HTMLParser):
    def __init__(self, html: str):
        super().__init__()
        self.found: list[tuple[str, dict]] = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, dict(attrs)))


@pytest.fixture
def every_page(alice, tess, alice_client, tess_client, client) -> dict[str, HttpResponse]:
    thread = Thread.objects.create(owner=alice)
    pages = {}
    for who, browser, extra in (
        ("anonymous", client, []),
        ("alice", alice_client, [f"/chat/{thread.pk}/"]),
        ("tess", tess_client, ["/admin/", "/admin/progress/badgedefinition/"]),
    ):
        pages |= {f"{who} {path}": page for path, page in pages_for(browser, extra).items()}
    return pages


def test_every_page_is_found(every_page):
    # A broken walk would make the checks below pass on nothing.
    for page in (
        "anonymous /accounts/login/",
        "alice /vault/",
        "alice /study/",
        "tess /classes/",
        "tess /api/v1/docs",
        "alice /privacy/",
        "tess /admin/",
    ):
        assert page in every_page
    assert any(re.fullmatch(r"alice /chat/\d+/", page) for page in every_page)
    assert len(every_page) > 25


def test_every_page_has_a_policy_without_inline_script_plugins_or_framing(every_page):
    for name, page in every_page.items():
        policy = page["Content-Security-Policy"]
        directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
        assert directives["script-src"] == "'self'", name
        assert directives["object-src"] == "'none'", name
        assert directives["frame-ancestors"] == "'none'", name


def test_no_page_has_inline_script(every_page):
    for name, page in every_page.items():
        for tag, attributes in Elements(page.text).found:
            assert not any(INLINE_HANDLER.match(attribute) for attribute in attributes), (name, tag)
            assert not any(attribute.startswith("hx-on") for attribute in attributes), (name, tag)
            assert not attributes.get("href", "").startswith("javascript:"), name
            if tag == "script":
                # Scripts come from files; a JSON data block is not run.
                assert "src" in attributes or attributes.get("type") == "application/json", name


def test_nothing_a_page_loads_or_links_to_leaves_the_server(every_page):
    for name, page in every_page.items():
        for tag, attributes in Elements(page.text).found:
            for attribute in ("src", "href", "action", "poster", "data"):
                url = attributes.get(attribute)
                if url is None:
                    continue
                parts = urlsplit(url)
                assert parts.netloc in ("", "testserver"), (name, tag, url)
                assert parts.scheme in ("", "http", "https", "mailto"), (name, tag, url)


def test_the_api_docs_use_the_bundled_swagger_ui(tess_client):
    page = tess_client.get("/api/v1/docs").text
    assert "/static/ninja/swagger-ui-bundle.js" in page
    assert "cdn" not in page.lower()
    assert tess_client.get("/static/ninja/swagger-ui-bundle.js").status_code == 200


def test_the_mindmap_svg_gets_a_sandboxed_policy_that_allows_nothing_to_run(alice, alice_client):
    mindmap, _ = Mindmap.objects.create_from(alice, {"title": "Cells", "children": []})

    response = alice_client.get(f"/api/v1/study/mindmaps/{mindmap.pk}.svg")

    assert response.status_code == 200
    directives = {
        part.strip().split(" ")[0]: part.strip().split(" ")[1:]
        for part in response["Content-Security-Policy"].split(";")
    }
    assert directives["default-src"] == ["'none'"]
    assert directives["script-src"] == ["'none'"]
    assert directives["object-src"] == ["'none'"]
    assert directives["frame-ancestors"] == ["'none'"]
    assert "sandbox" in directives and "connect-src" not in directives
