"""The isolation check every feature adds its URLs to."""

from collections.abc import Iterable

from django.test import Client

HTTP_METHODS = ("get", "post", "put", "patch", "delete")


def assert_only_owner_can_reach(
    url: str, intruder: Client, allowed_methods: Iterable[str] = HTTP_METHODS
) -> None:
    """Someone else's URL answers 404 to every method the URL takes, as if it did not exist.

    A method the URL never takes may answer 405 instead: that says nothing about the object.
    """
    allowed = {method.lower() for method in allowed_methods}
    for method in HTTP_METHODS:
        response = getattr(intruder, method)(url)
        expected = {404} if method in allowed else {404, 405}
        assert response.status_code in expected, (
            f"{method.upper()} {url} answered {response.status_code} to an intruder"
        )
