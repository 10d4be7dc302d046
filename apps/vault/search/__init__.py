"""Hybrid retrieval: dense search over float16 vectors (faiss) and BM25 over the same live chunks,
fused by RRF.

A chunk has several vectors, its own and its sentence windows'; dense search scores it by the
best of them (max-sim) and hands out the whole chunk. The BM25 query is then widened by the
best terms of the first fused top chunks (pseudo-relevance feedback) and the two are fused again.

The index is a cache of the database (a chunk's vectors live in its row), kept under
DATA_DIR/index/ as immutable segments that every process maps, and a manifest naming them with
their dead rows. A change of the live chunks adds a small segment and tombstones, one writer at a
time under a file lock; the jobs worker merges segments in the background; a large segment has an
approximate index whose candidates are rescored exactly (docs/retrieval.md#segments).

Callers use `query.search`; `ranking` holds the retrievers and their fusion, `snapshot` the
segments of one generation, `segment` one segment's files, `building` what a new one is made of,
`ann` the approximate index, `vocabulary` a segment's terms, `store` the manifest and its lock,
`live` this process's snapshot, `merging` the merges, `models` the generation and the change
journal, `reembed` the re-embedding job.
"""
