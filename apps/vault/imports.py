"""URL import: a person's explicit request to keep a public web page in their vault. Fetched by
the guarded client (fetch.py) and stored as an HTML document; trafilatura reads it at ingestion.
Nothing else calls this: in particular no model tool can."""

import codecs
import re
from email.message import EmailMessage
from urllib.parse import urlsplit

from apps.llm import egress
from apps.vault import fetch
from apps.vault.models import Category
from apps.vault.readers import decode_declared
from apps.vault.uploads import Stored, scope_for, store

# The resolver and connector the guard uses; tests swap them for fakes that stay on loopback.
resolver = fetch.system_resolver
connector = fetch.system_connector


def label_for(url: str) -> str:
    parts = urlsplit(url)
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{parts.hostname or ''}{parts.path}").strip("_.")
    return f"{name[:200] or 'page'}.html"


def import_url(
    owner, url: str, *, scope: str | None = None, category: Category | None = None
) -> Stored:
    url = url.strip()
    # Who may keep it where is settled before the page's host is so much as looked up.
    scope = scope_for(owner, scope)
    # The privacy audit shows it as asked for (not flagged), and only to this person.
    with egress.user_requested(url, owner.pk):
        page = fetch.fetch(url, resolver=resolver, connector=connector)
    return store(
        owner, label_for(url), [as_served(page)], scope=scope, category=category, source_url=url
    )


def as_served(page: fetch.Fetched) -> bytes:
    """The page as its browser reads it: in the charset its Content-Type names, which outranks
    a <meta> in the page. Kept as UTF-8 with a byte-order mark, which outranks both."""
    message = EmailMessage()
    message["Content-Type"] = page.content_type
    charset = message.get_content_charset()
    if not charset:
        return page.content
    return codecs.BOM_UTF8 + decode_declared(page.content, charset).encode()
