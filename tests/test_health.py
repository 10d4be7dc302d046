import socket

import pytest
from channels.testing import WebsocketCommunicator

from cognivault_site.asgi import application


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.django_db
def test_health_says_what_is_down_without_auth(client, settings):
    settings.REDIS_URL = f"redis://127.0.0.1:{closed_port()}/0"
    health = client.get("/api/v1/health").json()
    assert health["status"] == "degraded"
    assert health["database"]["status"] == "ok"
    assert health["redis"]["status"] == "down"
    assert settings.REDIS_URL in health["redis"]["detail"]
    assert health["worker"] == {"status": "down", "detail": "Redis is down"}


@pytest.mark.asyncio
async def test_websockets_from_a_foreign_origin_are_refused():
    communicator = WebsocketCommunicator(
        application,
        "/ws/chat/1/",
        headers=[(b"origin", b"http://evil.example"), (b"host", b"localhost")],
    )
    connected, _ = await communicator.connect()
    assert not connected
