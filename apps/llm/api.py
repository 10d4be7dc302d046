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
    """A student's own figures; `data_dir`, `storage` and the models' hosts and settings are
    a teacher's only (null or absent for a student); `storage_bytes` is the asker's own for a
    student, everything under the data folder for a teacher."""

    documents: int
    documents_by_status: dict[str, int]
    chunks: int
    embedding_models: dict[str, int]
    data_dir: str | None
    storage: list[StoredOut] | None
    storage_bytes: int
    models: dict
    connections: ConnectionsOut


@router.get("/vault/stats", response=VaultStatsOut)
def vault_stats(request: HttpRequest):
    return audit.vault_stats(request.user)
