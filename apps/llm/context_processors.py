from django.http import HttpRequest

from apps.llm import audit


def egress(request: HttpRequest) -> dict:
    """The sidebar's "N external connections" figure, on every page."""
    if not getattr(request, "user", None) or not request.user.is_authenticated:
        return {}
    return {"external_connections": audit.external_count()}
