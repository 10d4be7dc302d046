"""The Study Hub's tabs and stale counts, one per kind declared (apps/study/kinds.py), and the
class sets of an item, for its page's hand-out control."""

from django import template

from apps.classes.models import SchoolClass
from apps.study import kinds
from apps.study.classsets.models import ClassSet

register = template.Library()


@register.simple_tag
def study_tabs() -> list[kinds.Kind]:
    """The kinds with a tab of their own in the Study Hub, from the left."""
    return [kind for kind in kinds.every() if kind.tab]


@register.simple_tag
def stale_parts(counts: dict) -> list[tuple[int, str]]:
    """(how many, what one is called) of each kind's parts whose source changed."""
    return [(counts[kind.parts], kind.part) for kind in kinds.citing() if kind.parts in counts]


@register.simple_tag
def hand_out_state(item, user) -> dict:
    """The sets `item` is handed out in (one per class), and the classes `user` teaches that
    do not have it yet."""
    sets = list(ClassSet.objects.for_item(item).taught_by(user).select_related("school_class"))
    given = {class_set.school_class_id for class_set in sets}
    open_classes = [c for c in SchoolClass.objects.taught_by(user) if c.pk not in given]
    return {"sets": sets, "open_classes": open_classes}
