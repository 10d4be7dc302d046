"""Shows times in the person's own zone: the browser reports it in a `tz` cookie
(apps/progress/static/progress/timezone.js); we remember it for streaks and night-owl hours."""

import zoneinfo
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from apps.progress.models import LocalZone, valid_zone

COOKIE = "tz"


class LocalTimeZoneMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        name = valid_zone(request.COOKIES.get(COOKIE))
        if name is None:
            timezone.deactivate()
        else:
            timezone.activate(zoneinfo.ZoneInfo(name))
            # One write when the zone changes, not one per request.
            if request.user.is_authenticated and request.session.get("local_zone") != name:
                LocalZone.objects.remember(request.user, name)
                request.session["local_zone"] = name
        try:
            return self.get_response(request)
        finally:
            timezone.deactivate()
