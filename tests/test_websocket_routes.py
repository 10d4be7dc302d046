"""The site's websocket routes as a whole: what matches no route is refused, not a crash."""

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator

from cognivault_site.routing import websocket_urlpatterns

# serialized_rollback: the flush that ends a transactional test would otherwise take the data
# migrations' rows (badges) with it and clash with the next test that restores them.
pytestmark = [
    pytest.mark.asyncio,
    pytest.mark.django_db(transaction=True, serialized_rollback=True),
]


@pytest.mark.parametrize("path", ["/ws/nothing/", "/ws/chat/abc/", "/ws/chat/-1/", "/ws/chat/1"])
async def test_a_socket_to_no_route_is_refused_not_a_server_error(alice, path):
    socket = WebsocketCommunicator(URLRouter(websocket_urlpatterns), path)
    socket.scope["user"] = alice
    connected, _ = await socket.connect()
    assert not connected
