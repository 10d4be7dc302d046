"""A deck whose cards' source changed: each such card says so on the deck page with the passage
that answers it now, and refreshing touches only those cards, keeping every review."""

import pytest
from django.utils import timezone

from apps.study import stale
from apps.study.flashcards import scheduling
from apps.study.flashcards import stale as flashcards_stale
from apps.study.flashcards.models import CardReview, Deck
from apps.study.stale import says
from apps.study.tests.helpers import CELL_NOTES

pytestmark = pytest.mark.django_db

EDITED = CELL_NOTES.replace("Ribosomen bauen", "Ribosomen synthetisieren")


def test_the_deck_page_shows_each_changed_card_with_the_passage_that_answers_it_now(
    alice_client, notes
):
    deck = Deck.objects.get(pk=notes.make(alice_client, "decks", num_cards=20))
    assert "Source changed" not in alice_client.get(f"/study/decks/{deck.pk}/").content.decode()
    notes.edit("cells.md", EDITED)
    changed = flashcards_stale.stale_cards(deck)
    assert 0 < len(changed) < deck.cards.count()  # the retrieval notes did not change

    page = alice_client.get(f"/study/decks/{deck.pk}/").content.decode()
    assert page.count('class="stale-item"') == len(changed)
    assert "The passage that answers it now (cells.md" in page
    assert "synthetisieren" in page  # only the new version says so
    assert "Refresh only these" in page and "{#" not in page
    assert f"for {len(changed)} cards:" in page
    assert f'action="/study/stale/deck/{deck.pk}/refresh/"' in page
    for passage in stale.passages_now(
        deck, {c.pk: flashcards_stale.card_text(c) for c in changed}
    ).values():
        assert passage is not None and stale.live([passage.chunk_id]) == {passage.chunk_id}


def test_refreshing_a_deck_changes_only_its_changed_cards_and_keeps_reviews(alice_client, notes):
    deck = Deck.objects.get(pk=notes.make(alice_client, "decks", num_cards=20))
    now = timezone.now()
    for card in deck.cards.all():
        scheduling.review(card, "got_it", now=now)
    reviews = CardReview.objects.filter(card__deck=deck).count()
    notes.edit("cells.md", EDITED)
    changed = {card.pk for card in flashcards_stale.stale_cards(deck)}
    before = {
        card.pk: (card.front, card.back, card.source_chunk_id, card.due_at)
        for card in deck.cards.all()
    }

    page = alice_client.post(f"/study/stale/deck/{deck.pk}/refresh/", follow=True)
    assert f"Refreshed {len(changed)} item" in page.content.decode()
    assert flashcards_stale.stale_cards(deck) == []
    for card in deck.cards.all():
        if card.pk not in changed:
            assert (card.front, card.back, card.source_chunk_id, card.due_at) == before[card.pk]
        else:
            assert card.due_at == before[card.pk][3]  # the schedule stays
            assert says(card.chunk.text, card.back)
    assert CardReview.objects.filter(card__deck=deck).count() == reviews
    page = alice_client.get(f"/study/decks/{deck.pk}/").content.decode()
    assert "Source changed" not in page


def test_bob_can_neither_see_nor_refresh_alices_changed_cards(alice_client, bob_client, notes):
    deck = Deck.objects.get(pk=notes.make(alice_client, "decks", num_cards=20))
    notes.edit("cells.md", EDITED)
    changed = len(flashcards_stale.stale_cards(deck))
    assert bob_client.get(f"/study/decks/{deck.pk}/").status_code == 404
    assert bob_client.get(f"/api/v1/study/decks/{deck.pk}").status_code == 404
    assert bob_client.post(f"/study/stale/deck/{deck.pk}/refresh/").status_code == 404
    assert bob_client.post(f"/api/v1/study/decks/{deck.pk}/refresh").status_code == 404
    assert bob_client.get("/api/v1/study/stale").json()["total"] == 0
    assert 'id="stale-count"' not in bob_client.get("/study/decks/").content.decode()
    assert len(flashcards_stale.stale_cards(deck)) == changed  # nothing of alice's was refreshed
    assert alice_client.get("/api/v1/study/stale").json()["cards"] == changed
    cards = alice_client.get(f"/api/v1/study/decks/{deck.pk}").json()["cards"]
    assert sum(card["source_changed"] for card in cards) == changed
