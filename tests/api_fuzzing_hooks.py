"""Schemathesis hooks for tests/test_api_fuzzing.py (loaded through SCHEMATHESIS_HOOKS)."""

from urllib.parse import urlencode

import schemathesis

# daphne (Twisted) reads at most 16 KB of request line and headers and answers anything longer
# with a 414 before the app sees it (tests/test_server_refusals.py): such a query tests the
# server, not the API.
# Encoded as schemathesis sends it the query can come out a little longer, hence the margin.
MAX_QUERY_BYTES = 12_000


@schemathesis.hook
def filter_query(context, query) -> bool:
    return not query or len(urlencode(query, doseq=True)) <= MAX_QUERY_BYTES
