"""Websocket routes of the chat (mounted in cognivault_site/routing.py)."""

websocket_urlpatterns: list = []
