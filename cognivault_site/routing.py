"""Websocket routes of every app, mounted behind authentication in asgi.py."""

from apps.chat.routing import websocket_urlpatterns as chat_websockets

websocket_urlpatterns = [*chat_websockets]
