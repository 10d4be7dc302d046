"""Readiness of the parts the app needs: database, Redis, a Celery worker."""

from typing import TypedDict

import redis
from django.conf import settings
from django.db import connection

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
    try:
        replies = celery_app.control.ping(timeout=1.0)
    except Exception as error:  # broker unreachable
        return {"status": "down", "detail": f"no broker: {error}"}
    if not replies:
        return {"status": "down", "detail": "no Celery worker answered"}
    return {"status": "ok", "detail": ", ".join(sorted(name for r in replies for name in r))}
