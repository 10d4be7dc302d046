"""ASGI entry point: Django over HTTP (behind the door of refusals, cognivault_site/door.py),
Channels consumers over authenticated websockets."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cognivault_site.settings")
django_asgi_app = get_asgi_application()

# Imported after Django is set up: routing modules import models.
from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from cognivault_site.door import Door  # noqa: E402
from cognivault_site.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        # A refusal (429) given again to the same caller without entering Django: door.py.
        "http": Door(django_asgi_app),
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(websocket_urlpatterns))
        ),
    }
)
