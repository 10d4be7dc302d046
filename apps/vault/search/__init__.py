"""Hybrid retrieval: dense search over float16 vectors (faiss) and BM25 over the same live chunks,
fused by RRF.

A chunk has several vectors, its own and its sentence windows'; dense search scores it by the
best of them (max-sim) and hands out the whole chunk. The BM25 query is then widened by the
best terms of the first fused top chunks (pseudo-relevance feedback) and the two are fused again.

The index is a cache of the database (a chunk's vector lives in its row). Each process holds
one immutable `Snapshot`; when the database's generation moves on, the process brings its
snapshot up to date incrementally (added and removed chunk ids), one writer at a time under a
file lock, and saves it under DATA_DIR/index/ as a single file replaced atomically, so the
dense and keyword halves are always written, read and swapped together.

Callers use `query.search`; `ranking` holds the retrievers and their fusion, `snapshot` the rows,
`store` their file and lock, `live` this process's copy, `reembed` the re-embedding job.
"""
