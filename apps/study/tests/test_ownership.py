"""One visible_to for every study model: the owner's rows only, nobody else's, no visitor's."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from apps.study.flashcards.decks import create_deck
from apps.study.models import Card, Deck, Mindmap


@pytest.mark.django_db
def test_only_the_owner_sees_a_deck_its_cards_and_a_mindmap(alice, bob):
    deck, _ = create_deck(alice, "Vokabeln", [{"front": "Hund", "back": "dog"}], now=timezone.now())
    mindmap, _ = Mindmap.objects.create_from(alice, {"title": "Zelle"})

    for model, mine in [(Deck, deck), (Card, deck.cards.get()), (Mindmap, mindmap)]:
        assert list(model.objects.visible_to(alice)) == [mine]
        assert not model.objects.visible_to(bob).exists()
        assert not model.objects.visible_to(AnonymousUser()).exists()
