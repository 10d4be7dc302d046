"""Vault background jobs (Celery): thin wrappers that take ids and call one function."""

from celery import shared_task

from apps.vault import index

# --- Retrieval (index) ----------------------------------------------------------------------------


@shared_task
def reembed_chunks() -> int:
    """Re-embed chunks made with another model after the embedding model was switched."""
    return index.reembed_stale()
