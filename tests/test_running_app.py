"""The app as `make run` starts it: daphne + a Celery worker + Redis, checked from outside."""

import json
import urllib.error
import urllib.request

import pytest

from tests.helpers.running_app import TEACHER
from tests.helpers.slowness import REPLY

pytestmark = pytest.mark.services


def test_health_reports_database_redis_and_worker(running_app):
    health = running_app.get_json("/api/v1/health")
    assert health["status"] == "ok"
    assert health["database"]["status"] == "ok"
    assert health["redis"]["status"] == "ok"
    assert health["worker"]["status"] == "ok"


def test_the_openapi_docs_are_served(running_app):
    schema = running_app.get_json("/api/v1/openapi.json")
    assert "/api/v1/auth/token" in schema["paths"]
    with urllib.request.urlopen(running_app.url + "/api/v1/docs", timeout=REPLY) as response:
        assert response.status == 200


def test_a_token_from_the_running_app_opens_the_api(running_app):
    body = json.dumps({"username": TEACHER[0], "password": TEACHER[1]}).encode()
    request = urllib.request.Request(
        running_app.url + "/api/v1/auth/token",
        data=body,
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=REPLY) as response:
        token = json.load(response)["token"]

    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
    # A class of its own: other tests of the running app give this teacher classes of theirs.
    made = urllib.request.Request(
        running_app.url + "/api/v1/classes", data=b'{"name": "Token 7a"}', headers=headers
    )
    with urllib.request.urlopen(made, timeout=REPLY) as response:
        class_id = json.load(response)["id"]
    students = urllib.request.Request(
        running_app.url + "/api/v1/accounts/students",
        data=json.dumps({"usernames": ["Marie Curie"], "class_id": class_id}).encode(),
        headers=headers,
    )
    with urllib.request.urlopen(students, timeout=REPLY) as response:
        assert response.status == 201
        [created] = json.load(response)
    assert created["username"] == "marie.curie"


def test_static_files_are_served_without_debug(running_app):
    with urllib.request.urlopen(running_app.url + "/static/css/app.css", timeout=REPLY) as response:
        assert b"--accent" in response.read()


def test_an_unknown_host_is_refused(running_app):
    request = urllib.request.Request(
        running_app.url + "/accounts/login/", headers={"Host": "evil.example"}
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=REPLY)
    assert refused.value.code == 400
