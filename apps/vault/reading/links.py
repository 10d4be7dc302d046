"""Where a cited passage opens: its document's reader at its page, the passage marked. Every
citation and source link (chat answers, search hits, quiz reviews, cards, lessons, mindmap nodes,
the search check's misses) is made by `source_url`; a page that must not show a passage (a class
quiz whose key is hidden) simply does not call it."""

from urllib.parse import urlencode

from django.urls import reverse

from apps.vault.models import Chunk


def source_url(passage) -> str:
    """`passage` is a Chunk, a search hit, a chat citation (a dict) or a bare chunk id, which
    goes by way of the passage's own address (it looks the document and page up)."""
    if isinstance(passage, int):
        return reverse("vault:passage", args=[passage])
    if isinstance(passage, dict):
        if not passage.get("document_id"):  # saved before citations named their document
            return reverse("vault:passage", args=[passage["chunk_id"]])
        document, chunk, page = passage["document_id"], passage["chunk_id"], passage.get("page")
    elif isinstance(passage, Chunk):
        document, chunk, page = passage.document_id, passage.pk, passage.page
    else:
        document, chunk, page = passage.document_id, passage.chunk_id, passage.page
    query = urlencode({"page": page, "chunk": chunk} if page else {"chunk": chunk})
    return f"{reverse('vault:reader', args=[document])}?{query}"
