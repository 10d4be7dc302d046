"""URL import: a person's explicit request to keep a public web page in their vault. Fetched by
the guarded client (fetch.py) and stored as an HTML document; trafilatura reads it at ingestion.
Nothing else calls this: in particular no model tool can."""

import re
from urllib.parse import urlsplit

from apps.llm import egress
from apps.vault import fetch
from apps.vault.fetch import FetchError
from apps.vault.models import Category
from apps.vault.uploads import Stored, store

__all__ = ["FetchError", "import_url", "label_for"]

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
    # The privacy audit shows it as asked for (not flagged), and only to this person.
    with egress.user_requested(url, owner.pk):
        page = fetch.fetch(url, resolver=resolver, connector=connector)
    return store(
        owner, label_for(url), [page.content], scope=scope, category=category, source_url=url
    )
