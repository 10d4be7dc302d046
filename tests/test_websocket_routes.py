"""The site's websocket routes as a whole: what matches no route is refused, not a crash."""

import pytest
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import AnonymousUser

from cognivault_site.routing import websocket_urlpatterns
from tests.helpers.slowness import scaled

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize("path", ["/ws/nothing/", "/ws/chat/abc/", "/ws/chat/-1/", "/ws/chat/1"])
async def test_a_socket_to_no_route_is_refused_not_a_server_error(path):
    socket = WebsocketCommunicator(URLRouter(websocket_urlpatterns), path)
    socket.scope["user"] = AnonymousUser()  # no route looks at it: nothing matches
    connected, _ = await socket.connect(timeout=scaled(5))
    assert not connected
