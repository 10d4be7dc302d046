"""Readiness of the parts the app needs: database, Redis, a Celery worker on every queue, the
models.

Anyone may ask whether each part is ok (`GET /api/v1/health`); only a logged-in teacher sees the
details, which name the Redis URL, the model host, paths and worker names. The slow checks (the
workers' queues are asked with a one-second timeout, the model probe asks Ollama) are reused for
a few seconds, so polling the endpoint cannot keep the server busy.
"""

import time
from typing import TypedDict

import redis
from django.conf import settings
from django.db import connection

from apps.llm import gateway
from cognivault_site.celery import app as celery_app


class Check(TypedDict):
    status: str  # "ok" or "down"
    detail: str


def check_database() -> Check:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as error:  # any failure is a "down" to report, never a 500
        return {"status": "down", "detail": str(error)}
    return {"status": "ok", "detail": connection.vendor}


def check_redis() -> Check:
    try:
        redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1).ping()
    except redis.RedisError as error:
        return {"status": "down", "detail": f"{settings.REDIS_URL}: {error}"}
    return {"status": "ok", "detail": settings.REDIS_URL}


def check_worker() -> Check:
    """Ok when every queue of WORKER_QUEUES has a worker consuming it: a worker that answers a
    ping is not enough when it serves only some of them."""
    try:
        replies = celery_app.control.inspect(timeout=1.0).active_queues() or {}
    except Exception as error:  # broker unreachable
        return {"status": "down", "detail": f"no broker: {error}"}
    if not replies:
        return {"status": "down", "detail": "no Celery worker answered"}
    consumers = {
        queue: sorted(
            worker for worker, queues in replies.items() if queue in {q["name"] for q in queues}
        )
        for queue in settings.WORKER_QUEUES
    }
    served = "; ".join(
        f"{queue}: {', '.join(workers) or 'none'}" for queue, workers in consumers.items()
    )
    missing = [queue for queue, workers in consumers.items() if not workers]
    if missing:
        queues = " and ".join(missing) + (" queue" if len(missing) == 1 else " queues")
        return {"status": "down", "detail": f"no worker consumes the {queues} ({served})"}
    return {"status": "ok", "detail": served}


_cached: dict[tuple, tuple[float, dict]] = {}


def _slow_checks() -> dict:
    """Redis, worker and models, reused for HEALTH_CACHE_SECONDS. Keyed by what they depend on,
    so a changed configuration is never answered from an old look."""
    key = (
        settings.REDIS_URL,
        settings.OLLAMA_HOST,
        settings.LLM_BACKEND,
        settings.EMBEDDING_BACKEND,
        settings.SPEECH_ENABLED,
        str(settings.DATA_DIR),
    )
    now = time.monotonic()
    hit = _cached.get(key)
    if hit is not None and now - hit[0] < settings.HEALTH_CACHE_SECONDS:
        return hit[1]
    checks: dict = {"redis": check_redis()}
    checks["worker"] = (
        check_worker()
        if checks["redis"]["status"] == "ok"
        else {"status": "down", "detail": "Redis is down"}
    )
    checks["models"] = gateway.health()
    _cached.clear()
    _cached[key] = (now, checks)
    return checks


def report() -> dict:
    """Every part with its details, and the overall status ("ok" or "degraded")."""
    checks = {"database": check_database(), **_slow_checks()}
    models = checks["models"]
    ready = all(checks[part]["status"] == "ok" for part in ("database", "redis", "worker")) and all(
        models[part]["ready"] for part in ("chat", "embeddings")
    )
    return {"status": "ok" if ready else "degraded", **checks}


def summary(full: dict) -> dict:
    """The same report without details: each part's status only."""
    models = full["models"]
    return {
        "status": full["status"],
        **{part: {"status": full[part]["status"]} for part in ("database", "redis", "worker")},
        "models": {
            part: {"status": "ok" if models[part]["ready"] else "down"}
            for part in ("chat", "embeddings", "speech")
        },
    }
