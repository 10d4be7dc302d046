"""Websocket routes of every app, mounted behind authentication in asgi.py."""

from channels.security.websocket import WebsocketDenier
from django.urls import re_path

from apps.chat.routing import websocket_urlpatterns as chat_websockets

websocket_urlpatterns = [
    *chat_websockets,
    # Anything else is refused (403), where URLRouter would raise and daphne answer a 500.
    re_path(r"", WebsocketDenier.as_asgi()),
]
