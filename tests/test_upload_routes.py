"""The routes that take files are the ones the web server lets send a body over MAX_BODY_MB
(settings.UPLOAD_ROUTES, cognivault_site/bodies.py): every route of the URL map that reads a
file is listed, and every listed one is a route that does."""

import functools
import inspect

from django.conf import settings
from django.urls import URLPattern, URLResolver, get_resolver


def routes(patterns, prefix: str = ""):
    """Each view of the URL map with its route, as a request's `resolve(path).route` says it."""
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from routes(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            yield route, pattern.callback


def reads_a_file(view) -> bool:
    """An API route with a `File` parameter, or a page whose view reads `request.FILES`."""
    view = inspect.unwrap(view)
    if isinstance(view, functools.partial):
        view = view.func
    path_view = inspect.getclosurevars(view).nonlocals.get("self")
    if hasattr(path_view, "operations"):  # django-ninja's routes
        return any(
            model.__ninja_param_source__ == "file"
            for operation in path_view.operations
            for model in operation.models
        )
    # The admin's generic views read request.FILES for any model; ours have no file field.
    ours = view.__module__.startswith(("apps.", "cognivault_site."))
    return ours and "request.FILES" in inspect.getsource(view)


def test_every_route_that_reads_a_file_is_an_upload_route():
    taking_files = {
        route for route, view in routes(get_resolver().url_patterns) if reads_a_file(view)
    }

    assert taking_files == set(settings.UPLOAD_ROUTES)
