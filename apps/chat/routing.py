"""Websocket routes of the chat (mounted in cognivault_site/routing.py)."""

from django.urls import path

from apps.chat.consumers import ChatConsumer

websocket_urlpatterns: list = [
    path("ws/chat/<int:session_id>/", ChatConsumer.as_asgi()),
]
