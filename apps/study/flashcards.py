"""Flashcard decks: FSRS scheduling of each answer, the due queue, CSV in and out, Anki export.

Two buttons map onto FSRS ratings: "got it" is Good, "review" is Again (see the README).
"""

import csv
import hashlib
import html
import io
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import fsrs
import genanki
from django.db import transaction
from django.db.models import F
from pydantic import BaseModel, field_validator

from apps.study import events, generator
from apps.study.models import Card, CardReview, Deck
from apps.study.quiz import scope_title

# Fuzzing spreads due dates randomly; our decks are small and a schedule you can predict
# (and test) is worth more here than load balancing across days.
SCHEDULER = fsrs.Scheduler(enable_fuzzing=False)
RATINGS = {
    CardReview.Outcome.GOT_IT: fsrs.Rating.Good,
    CardReview.Outcome.REVIEW: fsrs.Rating.Again,
}
MAX_CSV_BYTES = 1_000_000
# Spreadsheet programs run a cell that starts like a formula; exports quote such cells with
# a leading apostrophe and imports take it off again, so the round trip is lossless.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class DeckError(ValueError):
    """Input we cannot turn into a deck; the message is shown to the person."""


def clean_side(value: object) -> str:
    return value.strip()[: Card.MAX_SIDE] if isinstance(value, str) else ""


def clean_cards(items: list) -> list[dict]:
    """Keep the items with a non-empty front and back; drop the rest."""
    cards = []
    for item in items:
        if not isinstance(item, dict):
            continue
        front, back = clean_side(item.get("front")), clean_side(item.get("back"))
        if front and back:
            chunk_id = item.get("chunk_id")
            cards.append(
                {
                    "front": front,
                    "back": back,
                    "chunk_id": chunk_id if isinstance(chunk_id, int) else None,
                }
            )
    return cards[: Deck.MAX_CARDS]


@transaction.atomic
def create_deck(owner, title: str, items: list, *, now: datetime, **fields) -> Deck:
    cards = clean_cards(items)
    if not cards:
        raise DeckError("A deck needs at least one card with a front and a back.")
    deck = Deck.objects.create(owner=owner, title=title.strip()[:200] or "Deck", **fields)
    Card.objects.bulk_create(
        Card(deck=deck, position=i, due_at=now, **card) for i, card in enumerate(cards)
    )
    return deck


def add_card(deck: Deck, front: str, back: str, *, now: datetime) -> Card:
    last = deck.cards.order_by("-position").values_list("position", flat=True).first()
    return Card.objects.create(
        deck=deck,
        position=(last + 1) if last is not None else 0,
        front=front,
        back=back,
        due_at=now,
    )


class CardItem(BaseModel):
    """One card as the model must return it; anything else is dropped."""

    front: str
    back: str

    @field_validator("front", "back")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("empty")
        return value[: Card.MAX_SIDE]


def same_card(item: CardItem) -> str:
    return " ".join(item.front.casefold().split())


def generate_deck(
    user, *, num_cards: int, scope: generator.Scope, now: datetime, title: str = ""
) -> Deck:
    """Generate and store a deck; raises generator.GenerationError with a readable message."""
    if num_cards not in Deck.SIZES:
        raise DeckError(f"A deck has {', '.join(map(str, Deck.SIZES))} cards.")
    result = generator.generate_items(
        user,
        template="flashcards",
        schema=CardItem,
        count=num_cards,
        key="cards",
        scope=scope,
        identity=same_card,
    )
    items = [
        {
            "front": item.value.front,
            "back": item.value.back,
            "chunk_id": item.chunk_ids[0] if len(item.chunk_ids) == 1 else None,
        }
        for item in result.items
    ]
    deck = create_deck(
        user,
        title or f"Cards on {scope_title(user, scope)}",
        items,
        now=now,
        category_ids=list(scope.category_ids),
        document_ids=list(scope.document_ids),
        model_label=f"{result.backend} · {result.model}".strip(" ·"),
    )
    events.deck_created(user)
    return deck


# --- Scheduling -----------------------------------------------------------------------------


def to_fsrs(card: Card) -> fsrs.Card:
    return fsrs.Card(
        card_id=card.pk,
        state=fsrs.State(card.state),
        step=card.step,
        stability=card.stability,
        difficulty=card.difficulty,
        due=card.due_at.astimezone(UTC),
        last_review=card.last_review_at.astimezone(UTC) if card.last_review_at else None,
    )


@transaction.atomic
def review(card: Card, outcome: str, *, now: datetime) -> CardReview:
    """Apply one answer: FSRS moves the card to its next state and due time, and it is logged."""
    outcome = CardReview.Outcome(outcome)
    scheduled, _ = SCHEDULER.review_card(to_fsrs(card), RATINGS[outcome], now.astimezone(UTC))
    card.state = int(scheduled.state)
    card.step = scheduled.step
    card.stability = scheduled.stability
    card.difficulty = scheduled.difficulty
    card.due_at = scheduled.due
    card.last_review_at = scheduled.last_review
    card.mastered = outcome == CardReview.Outcome.GOT_IT
    card.save()
    return CardReview.objects.create(
        card=card,
        outcome=outcome,
        reviewed_at=now,
        state_after=card.state,
        due_after=card.due_at,
    )


def record_flip(card: Card) -> None:
    Card.objects.filter(pk=card.pk).update(flips=F("flips") + 1)


def next_card(cards, *, now: datetime, after: Card | None = None) -> Card | None:
    """The card to show: the most overdue one first, else the deck in order after `after`."""
    due = cards.due(now)
    if after is not None:
        due = due.exclude(pk=after.pk)
    card = due.first()
    if card is None and after is not None:
        card = cards.filter(position__gt=after.position).order_by("position", "id").first()
    return card


# --- CSV ------------------------------------------------------------------------------------


def protect_cell(text: str) -> str:
    return "'" + text if text.startswith(FORMULA_STARTS) or text.startswith("'") else text


def unprotect_cell(text: str) -> str:
    return (
        text[1:]
        if text.startswith("'") and text[1:2] and text[1:].startswith((*FORMULA_STARTS, "'"))
        else text
    )


def export_csv(deck: Deck) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["front", "back"])
    for card in deck.cards.all():
        writer.writerow([protect_cell(card.front), protect_cell(card.back)])
    return out.getvalue()


def parse_csv(data: bytes) -> list[dict]:
    """Two columns, front and back (a header row is optional); comma, semicolon or tab."""
    if len(data) > MAX_CSV_BYTES:
        raise DeckError("The CSV file is larger than 1 MB.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise DeckError("The CSV file is not UTF-8 text.") from error
    if "\x00" in text:
        raise DeckError("The file is not a CSV text file.")
    first_line = text.split("\n", 1)[0]
    delimiter = max(",;\t", key=first_line.count)
    try:
        rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    except csv.Error as error:
        raise DeckError(f"The CSV file cannot be read: {error}.") from error
    if rows and [cell.strip().lower() for cell in rows[0][:2]] == ["front", "back"]:
        rows = rows[1:]
    items = [
        {"front": unprotect_cell(row[0]), "back": unprotect_cell(row[1])}
        for row in rows
        if len(row) >= 2
    ]
    cards = clean_cards(items)
    if not cards:
        raise DeckError("No cards found: each line needs a front and a back, e.g. `front,back`.")
    return cards


# --- Anki -----------------------------------------------------------------------------------

# Fixed ids: Anki recognises the note type and the deck again when a deck is re-exported.
ANKI_MODEL = genanki.Model(
    1607392319,
    "CogniVault basic",
    fields=[{"name": "Front"}, {"name": "Back"}],
    templates=[
        {
            "name": "Card 1",
            "qfmt": "{{Front}}",
            "afmt": '{{FrontSide}}<hr id="answer">{{Back}}',
        }
    ],
)


def anki_field(text: str) -> str:
    """Anki fields are HTML: escape the text, keep its line breaks."""
    return html.escape(text).replace("\n", "<br>")


def stable_id(*parts: object) -> int:
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:6], "big") + (1 << 30)


def export_apkg(deck: Deck) -> bytes:
    anki_deck = genanki.Deck(stable_id("deck", deck.owner_id, deck.pk), deck.title)
    for card in deck.cards.all():
        anki_deck.add_note(
            genanki.Note(
                model=ANKI_MODEL,
                fields=[anki_field(card.front), anki_field(card.back)],
                guid=genanki.guid_for("cognivault", deck.pk, card.pk),
            )
        )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "deck.apkg"
        genanki.Package(anki_deck).write_to_file(str(path))
        return path.read_bytes()
