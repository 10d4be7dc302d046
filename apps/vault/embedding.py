"""A chunk's vectors: its own and its sentence windows', for the index's max-sim. The ingestion
step and the index's re-embedding both make them here, so neither reaches the other."""

from collections.abc import Sequence

import numpy as np

from apps.llm import gateway
from apps.vault.chunking import windows


def chunk_vectors(texts: Sequence[str]) -> list[np.ndarray]:
    """Each chunk's vectors, one row each: its own, then its sentence windows' (for max-sim)."""
    parts = [[text, *windows(text)] for text in texts]
    flat = gateway.embed([part for chunk in parts for part in chunk]).astype(np.float32)
    ends = np.cumsum([len(chunk) for chunk in parts])
    return np.split(flat, ends[:-1]) if len(parts) else []
