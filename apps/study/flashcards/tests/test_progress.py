"""Decks feed the progress app: events recorded, badges earned."""

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
