"""The class set of an item, for its page's hand-out control."""

from django import template

from apps.study.classsets.models import ClassSet

register = template.Library()


@register.filter
def class_set(item) -> ClassSet | None:
    """The set `item` is handed out in, if it is."""
    return ClassSet.objects.for_item(item).first()
