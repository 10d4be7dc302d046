"""Small display helpers for study figures."""

from django import template

register = template.Library()


@register.filter
def duration(seconds: int | float | None) -> str:
    """3725 -> '1 h 2 min'; under a minute -> '0 min'."""
    minutes = int(seconds or 0) // 60
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"
