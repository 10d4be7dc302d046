import json
import shutil
import socket
import subprocess
import urllib.request

import pytest
import redis
from channels.testing import WebsocketCommunicator

from apps.accounts.models import ApiToken
from cognivault_site.asgi import application
from tests.helpers.running_app import TEACHER, worker_command
from tests.helpers.services import free_port, spawn, stop, wait_until
from tests.helpers.slowness import REPLY, scaled


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def own_redis(tmp_path):
    """A Redis of this test's own, so the pings it counts are only the health check's."""
    port = free_port()
    process = subprocess.Popen(
        [shutil.which("redis-server"), "--bind", "127.0.0.1", "--port", str(port), "--save", ""],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"

    def answers() -> bool:
        try:
            return redis.Redis.from_url(url).ping()
        except redis.ConnectionError:
            return False

    try:
        wait_until(answers, timeout=20, what="redis-server")
        yield url
    finally:
        stop(process)


def pings(url: str) -> int:
    stats = redis.Redis.from_url(url).info("commandstats")
    return stats.get("cmdstat_ping", {}).get("calls", 0)


@pytest.mark.django_db
def test_health_without_login_says_only_ok_or_down_per_part(client, settings):
    settings.REDIS_URL = f"redis://127.0.0.1:{closed_port()}/0"
    settings.OLLAMA_HOST = "http://ollama.lan.example:11434"

    response = client.get("/api/v1/health")
    health = response.json()

    assert health["status"] == "degraded"
    assert health["database"] == {"status": "ok"}
    assert health["redis"] == {"status": "down"}
    assert health["worker"] == {"status": "down"}
    assert set(health["models"]) == {"chat", "embeddings", "speech"}
    # No URL, host, path or worker name for whoever asks.
    for secret in (settings.REDIS_URL, "127.0.0.1", "ollama.lan.example", str(settings.DATA_DIR)):
        assert secret not in response.text
    assert set(json.dumps(health)) <= set('{}[]":, abcdefghijklmnopqrstuvwxyz_')


@pytest.mark.django_db
def test_a_student_gets_no_details_either(alice_client, settings):
    settings.REDIS_URL = f"redis://127.0.0.1:{closed_port()}/0"
    assert alice_client.get("/api/v1/health").json()["redis"] == {"status": "down"}


@pytest.mark.django_db
def test_a_teacher_sees_what_is_down_and_why(tess_client, settings):
    settings.REDIS_URL = f"redis://127.0.0.1:{closed_port()}/0"

    health = tess_client.get("/api/v1/health").json()

    assert health["redis"]["status"] == "down"
    assert settings.REDIS_URL in health["redis"]["detail"]
    assert health["worker"] == {"status": "down", "detail": "Redis is down"}
    assert health["models"]["ollama"]["host"] == settings.OLLAMA_HOST


@pytest.mark.django_db
def test_a_teachers_api_token_gets_the_details_and_a_students_does_not(alice, tess, client):
    _, teacher_token = ApiToken.objects.issue(tess, "monitoring")
    _, student_token = ApiToken.objects.issue(alice, "script")

    teacher = client.get("/api/v1/health", HTTP_AUTHORIZATION=f"Bearer {teacher_token}").json()
    student = client.get("/api/v1/health", HTTP_AUTHORIZATION=f"Bearer {student_token}").json()

    assert "detail" in teacher["redis"] and "ollama" in teacher["models"]
    assert set(student["redis"]) == {"status"}


@pytest.mark.django_db
def test_the_slow_checks_are_reused_for_a_few_seconds(client, settings, own_redis):
    settings.REDIS_URL = own_redis
    settings.HEALTH_CACHE_SECONDS = 3600  # far longer than this test takes

    before = pings(own_redis)
    for _ in range(3):
        assert client.get("/api/v1/health").json()["redis"] == {"status": "ok"}
    assert pings(own_redis) == before + 1

    settings.HEALTH_CACHE_SECONDS = 0
    client.get("/api/v1/health")
    assert pings(own_redis) == before + 2


@pytest.mark.asyncio
async def test_websockets_from_a_foreign_origin_are_refused():
    communicator = WebsocketCommunicator(
        application,
        "/ws/chat/1/",
        headers=[(b"origin", b"http://evil.example"), (b"host", b"localhost")],
    )
    connected, _ = await communicator.connect(timeout=scaled(5))
    assert not connected


def teacher_health(app) -> dict:
    """The report a teacher's token gets, with the details."""
    login = json.dumps({"username": TEACHER[0], "password": TEACHER[1]}).encode()
    request = urllib.request.Request(
        app.url + "/api/v1/auth/token", login, {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=REPLY) as response:
        token = json.load(response)["token"]
    request = urllib.request.Request(
        app.url + "/api/v1/health", headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(request, timeout=REPLY) as response:
        return json.load(response)


@pytest.mark.services
def test_the_worker_is_down_while_a_queue_has_no_consumer_and_the_teacher_sees_which(start_app):
    with start_app(queues=("celery",)) as app:
        anonymous = app.get_json("/api/v1/health")
        assert anonymous["status"] == "degraded"
        assert anonymous["worker"] == {"status": "down"}
        worker = teacher_health(app)["worker"]
        assert worker["status"] == "down"
        assert worker["detail"].startswith(
            "no worker consumes the chat and study queues (celery: test-"
        )

        port = int(app.env["PORT"])
        chat = spawn(worker_command("chat", port), app.env, app.data_dir / "logs" / "chat.log")
        try:
            # The last look is reused for HEALTH_CACHE_SECONDS (5 s by default).
            wait_until(
                lambda: app.get_json("/api/v1/health")["worker"] == {"status": "ok"},
                timeout=90,
                what="the chat worker in the health report",
            )
            worker = teacher_health(app)["worker"]
            assert worker["status"] == "ok"
            assert f"chat: chat-{port}@" in worker["detail"]
            assert f"study: chat-{port}@" in worker["detail"]
        finally:
            stop(chat)
