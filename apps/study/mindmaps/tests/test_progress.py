"""Mindmaps feed the progress app: events recorded, badges earned."""

import pytest

from apps.progress.models import EarnedBadge, Event

pytestmark = pytest.mark.django_db


def badges(user) -> set[str]:
    return set(EarnedBadge.objects.filter(user=user).values_list("badge__code", flat=True))


def test_creating_and_exporting_a_mindmap_earns_the_mindmap_badges(alice, alice_client):
    alice_client.post("/study/mindmaps/new/", {"outline": "# Zelle\n- Kern\n"})
    mindmap = alice.mindmaps.get()
    assert "mind_mapper" in badges(alice)
    alice_client.get(f"/study/mindmaps/{mindmap.pk}/export.md")
    assert Event.objects.filter(user=alice, kind=Event.Kind.MINDMAP_EXPORT).count() == 1
    assert "cartographer" in badges(alice)
