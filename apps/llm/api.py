"""Privacy figures for the REST API: `GET /api/v1/vault/stats`."""

from django.http import HttpRequest
from ninja import Router, Schema

from apps.accounts.api import Id
from apps.llm import audit

router = Router(tags=["vault"])


class StoredOut(Schema):
    path: str
    holds: str
    bytes: int


class ConnectionOut(Schema):
    at: float
    pid: int
    role: str
    host: str
    port: int
    kind: str
    detail: str
    user_id: Id | None
    flagged: bool


class ConnectionsOut(Schema):
    external: int
    by_kind: dict[str, int]
    recent: list[ConnectionOut]


class VaultStatsOut(Schema):
    documents: int
    documents_by_status: dict[str, int]
    chunks: int
    embedding_models: dict[str, int]
    data_dir: str
    storage: list[StoredOut]
    storage_bytes: int
    models: dict
    connections: ConnectionsOut


@router.get("/vault/stats", response=VaultStatsOut)
def vault_stats(request: HttpRequest):
    return audit.vault_stats(request.user)
