"""A class set names its item by kind and id, with no foreign key to cascade: deleting the
item, however it goes, deletes its set and no other."""

import pytest

from apps.study.classsets.tests.factories import make_deck, make_mindmap, make_quiz, make_workshop
from apps.study.models import ClassSet, Mindmap
from tests.helpers.classes import class_of

pytestmark = pytest.mark.django_db


def test_deleting_a_handed_out_item_deletes_its_class_set_and_no_other(tess, tess_client):
    deck, mindmap, workshop = make_deck(tess), make_mindmap(tess), make_workshop(tess)
    recap = make_quiz(tess)
    recap.workshop = workshop
    recap.save(update_fields=["workshop"])
    kept = make_quiz(tess)
    for item in (deck, mindmap, workshop, recap, kept):
        ClassSet.objects.hand_out(tess, item, class_of(tess))

    assert tess_client.post(f"/study/decks/{deck.pk}/delete/").status_code == 302
    Mindmap.objects.filter(pk=mindmap.pk).delete()
    workshop.delete()  # and its recap quiz with it

    assert [(s.kind, s.item_id) for s in ClassSet.objects.all()] == [("quiz", kept.pk)]


def test_an_item_of_the_same_id_in_another_kind_keeps_its_set(tess):
    """Ids repeat across kinds' tables: a set is one per (kind, item id)."""
    quiz, deck = make_quiz(tess), make_deck(tess)
    deck.pk = quiz.pk  # the same id in both tables
    deck.save()
    ClassSet.objects.hand_out(tess, quiz, class_of(tess))
    ClassSet.objects.hand_out(tess, deck, class_of(tess))

    deck.delete()

    assert ClassSet.objects.get().item == quiz
