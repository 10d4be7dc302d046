"""One visible_to for every study model: the owner's rows only, nobody else's, no visitor's;
one readable_by adding, for students, what is handed out to the class."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from apps.accounts.models import User
from apps.study.flashcards.decks import create_deck
from apps.study.models import Card, ClassSet, Deck, Mindmap
from tests.helpers.classes import class_of


@pytest.mark.django_db
def test_only_the_owner_sees_a_deck_its_cards_and_a_mindmap(alice, bob):
    deck, _ = create_deck(alice, "Vokabeln", [{"front": "Hund", "back": "dog"}], now=timezone.now())
    mindmap, _ = Mindmap.objects.create_from(alice, {"title": "Zelle"})

    for model, mine in [(Deck, deck), (Card, deck.cards.get()), (Mindmap, mindmap)]:
        assert list(model.objects.visible_to(alice)) == [mine]
        assert not model.objects.visible_to(bob).exists()
        assert not model.objects.visible_to(AnonymousUser()).exists()


@pytest.mark.django_db
def test_a_student_reads_what_is_handed_out_to_the_class_and_only_the_owner_changes_it(
    tess, alice, bob, tess_class
):
    theo = User.objects.create_user("theo", is_staff=True)
    deck, _ = create_deck(tess, "Vokabeln", [{"front": "Hund", "back": "dog"}], now=timezone.now())
    bobs, _ = create_deck(bob, "Bobs", [{"front": "Katze", "back": "cat"}], now=timezone.now())
    ClassSet.objects.hand_out(tess, deck, class_of(tess))

    for model, item in [(Deck, deck), (Card, deck.cards.get())]:
        assert list(model.objects.readable_by(alice)) == [item]
        assert not model.objects.visible_to(alice).exists()
        assert not model.objects.readable_by(theo).exists()  # teachers are not in the class
        assert not model.objects.readable_by(AnonymousUser()).exists()
    assert list(Deck.objects.readable_by(bob).order_by("pk")) == [deck, bobs]
