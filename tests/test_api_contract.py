"""Every REST route, called the way an outside client calls it: a Bearer token, JSON bodies."""

import re

import pytest

from apps.accounts.models import ApiToken
from cognivault_site.api import api

pytestmark = pytest.mark.django_db
METHODS = {"get", "post", "put", "patch", "delete"}


def routes() -> list[tuple[str, str]]:
    paths = api.get_openapi_schema()["paths"]
    return [(method, path) for path, item in paths.items() for method in item if method in METHODS]


def test_the_contract_routes_of_the_spec_exist():
    listed = {path for _, path in routes()}
    for path in [
        "/api/v1/health", "/api/v1/auth/token", "/api/v1/accounts/students",
        "/api/v1/vault/categories", "/api/v1/vault/documents", "/api/v1/vault/urls",
        "/api/v1/vault/documents/{document_id}", "/api/v1/vault/ingest",
        "/api/v1/vault/ingest/{run_id}", "/api/v1/vault/search", "/api/v1/vault/stats",
        "/api/v1/chat/sessions", "/api/v1/chat/transcribe",
        "/api/v1/study/quizzes", "/api/v1/study/workshops", "/api/v1/study/decks",
        "/api/v1/study/mindmaps", "/api/v1/progress/summary", "/api/v1/progress/heatmap",
        "/api/v1/progress/achievements",
    ]:  # fmt: skip
        assert path in listed


def test_a_token_client_never_gets_a_server_error_or_a_login_prompt(client, alice):
    _, token = ApiToken.objects.issue(alice, "contract test")
    for method, path in routes():
        url = re.sub(r"\{[^}]+\}", "999999", path)
        body = {} if method == "get" else {"data": "{}", "content_type": "application/json"}
        response = getattr(client, method)(url, **body, HTTP_AUTHORIZATION=f"Bearer {token}")
        where = f"{method.upper()} {url} answered {response.status_code}"
        assert response.status_code < 500, where
        if path != "/api/v1/auth/token":
            assert response.status_code != 401, where
        if response.status_code >= 400:
            assert "detail" in response.json(), where
