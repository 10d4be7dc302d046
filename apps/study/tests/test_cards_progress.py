"""Decks and mindmaps feed the progress app: events recorded, badges earned."""

import pytest

from apps.progress.models import EarnedBadge, Event

pytestmark = pytest.mark.django_db


def badges(user) -> set[str]:
    return set(EarnedBadge.objects.filter(user=user).values_list("badge__code", flat=True))


def test_a_deck_answered_to_mastery_records_flips_and_earns_the_deck_badges(alice, alice_client):
    alice_client.post("/study/decks/new/", {"title": "Vokabeln", "front": "Hund", "back": "dog"})
    assert "first_deck" in badges(alice)
    deck = alice.decks.get()
    card = deck.cards.get()
    url = f"/study/decks/{deck.pk}/cards/{card.pk}/review/"
    alice_client.post(url, {"outcome": "review"})
    alice_client.post(url, {"outcome": "got_it"})
    flips = Event.objects.filter(user=alice, kind=Event.Kind.CARD_FLIP)
    assert flips.count() == 2
    assert [e.mastered_deck for e in flips.order_by("at", "id")] == [False, True]
    assert "deck_master" in badges(alice)


def test_creating_and_exporting_a_mindmap_earns_the_mindmap_badges(alice, alice_client):
    alice_client.post("/study/mindmaps/new/", {"outline": "# Zelle\n- Kern\n"})
    mindmap = alice.mindmaps.get()
    assert "mind_mapper" in badges(alice)
    alice_client.get(f"/study/mindmaps/{mindmap.pk}/export.md")
    assert Event.objects.filter(user=alice, kind=Event.Kind.MINDMAP_EXPORT).count() == 1
    assert "cartographer" in badges(alice)
