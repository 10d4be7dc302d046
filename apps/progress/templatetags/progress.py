"""Small display helpers for study figures."""

from datetime import date
from functools import lru_cache

from django import template
from django.utils import formats, translation

register = template.Library()


@register.filter
def duration(seconds: int | float | None) -> str:
    """3725 -> '1 h 2 min'; under a minute -> '0 min'."""
    minutes = int(seconds or 0) // 60
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"


@register.filter
def day_label(day: date, pattern: str) -> str:
    """`day|date:pattern`, remembered: the heatmap labels the same 91 days on every visit, and
    Django's date formatting took a third of the dashboard's time."""
    return formatted_day(day, pattern, translation.get_language())


@lru_cache(maxsize=2048)
def formatted_day(day: date, pattern: str, language: str | None) -> str:
    return formats.date_format(day, pattern)  # in the active language, part of the key
