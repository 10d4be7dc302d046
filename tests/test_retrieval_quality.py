"""Retrieval quality on a labelled set of study texts (tests/retrieval_quality/), real embeddings.

Exact-identifier queries (§ numbers, ISBNs, error codes, function names, versions, course codes)
must find their chunk in the top 7 at least 95 % of the time, and hybrid must beat dense-only.
"""

from pathlib import Path

import pytest

from apps.llm import gateway
from apps.vault.models import Document
from apps.vault.search import live
from apps.vault.search.query import search as search_chunks
from apps.vault.tests.chunks import add_chunks, use_embedded_model
from tests.helpers.documents import make_document

HERE = Path(__file__).parent / "retrieval_quality"
K = 7


def labelled_queries() -> list[tuple[str, str]]:
    lines = (HERE / "queries.tsv").read_text(encoding="utf-8").splitlines()
    return [tuple(line.split("\t")) for line in lines if line and not line.startswith("#")]


@pytest.fixture
def study_vault(settings, tess):
    use_embedded_model(settings)
    by_file: dict[str, list[str]] = {}
    for block in (HERE / "corpus.txt").read_text(encoding="utf-8").split("\n---\n"):
        filename, text = block.strip().split("\n", 1)
        by_file.setdefault(filename, []).append(text.strip())
    for filename, texts in by_file.items():
        add_chunks(make_document(tess, filename, scope=Document.Scope.CLASS), texts)
    yield
    live.forget()


def test_exact_identifier_queries_find_their_chunk_and_hybrid_beats_dense_only(study_vault, alice):
    queries = labelled_queries()
    assert len(queries) >= 20
    hybrid_found = dense_found = 0
    misses = []
    snapshot = live.current()
    texts = dict(
        Document.objects.values_list("chunks__id", "chunks__text").exclude(chunks__id=None)
    )
    for query, phrase in queries:
        hits = search_chunks(alice, query, k=K)
        if any(phrase in hit.text for hit in hits):
            hybrid_found += 1
        else:
            misses.append(query)
        vector = gateway.embed([query])[0]
        dense = snapshot.dense_ranking(vector, None, K, min_score=-1.0)
        dense_found += any(phrase in texts[int(snapshot.ids[row])] for row in dense)
    assert hybrid_found / len(queries) >= 0.95, f"missed: {misses}"
    assert hybrid_found > dense_found
    print(f"top-{K}: hybrid {hybrid_found}/{len(queries)}, dense only {dense_found}/{len(queries)}")
