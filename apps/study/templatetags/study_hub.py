"""The Study Hub's tabs and stale counts, one per kind declared (apps/study/kinds.py), and the
class set of an item, for its page's hand-out control."""

from django import template

from apps.study import kinds
from apps.study.classsets.models import ClassSet

register = template.Library()


@register.simple_tag
def study_tabs() -> list[kinds.Kind]:
    return kinds.with_tabs()


@register.simple_tag
def stale_parts(counts: dict) -> list[tuple[int, str]]:
    """(how many, what one is called) of each kind's parts whose source changed."""
    return [(counts[kind.parts], kind.part) for kind in kinds.citing() if kind.parts in counts]


@register.filter
def class_set(item) -> ClassSet | None:
    """The set `item` is handed out in, if it is."""
    return ClassSet.objects.for_item(item).first()
