"""Decks from the vault: the shared generator recipe, each card keeping its passage."""

import re
from datetime import datetime

from pydantic import BaseModel, field_validator

from apps.llm import gateway
from apps.study import generator, retrieval, starting
from apps.study.errors import InvalidInput, NothingValid
from apps.study.extractive import cards as extractive_cards
from apps.study.extractive import material
from apps.study.flashcards.decks import fill_deck
from apps.study.flashcards.models import Card, Deck
from apps.study.sources import scope_title


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


def start_deck(
    user,
    *,
    num_cards: int,
    scope: generator.Scope,
    title: str = "",
    method: str | None = None,
    key: str = "",
) -> tuple[Deck, bool]:
    """Check what is asked and store the deck as "generating" for a worker to fill
    (fill_generated_deck); (the deck, new?). The same request `key` gives back the deck it made
    before. Raises a StudyError with a readable message."""
    if num_cards not in Deck.SIZES:
        raise InvalidInput(f"A deck has {', '.join(map(str, Deck.SIZES))} cards.")
    retrieval.check_scope(user, scope)
    source = scope_title(user, scope)
    return starting.create(
        Deck,
        user,
        key,
        title=(title.strip() or f"Cards on {source}")[:200],
        category_ids=list(scope.category_ids),
        document_ids=list(scope.document_ids),
        asked={"method": method, "count": num_cards, "source": source},
    )


def fill_generated_deck(deck: Deck, *, now: datetime) -> list:
    """Generate the cards of a deck started by start_deck, store them and record the deck;
    the badges just earned.

    `method` "extractive" cuts every card from the documents; "model" asks the model and fills
    what it fell short of with extractive cards (marked `extractive`); not given, extractive
    when the embedded model would answer."""
    user, count = deck.owner, deck.asked["count"]
    scope = generator.Scope(deck.category_ids, deck.document_ids)
    if generator.choose_method(deck.asked.get("method")) == generator.EXTRACTIVE:
        sources, items, label = material.passages(user, scope, count), [], TEXT_LABEL
    else:
        sources, items, label = _from_model(user, scope, count)
        label = label if items else TEXT_LABEL  # the model wrote none of the cards
    items += _from_text(user, scope, sources, have=items, count=count)
    if not items:
        raise NothingValid(
            "No card could be made: the documents in this scope hold too few sentences with "
            "key terms. Pick more documents, or another scope."
        )
    return fill_deck(deck, items, now=now, model_label=label)


# How material cut from the documents is labelled where a model name would stand.
TEXT_LABEL = f"{generator.EXTRACTIVE} · from the documents' text"


def _from_model(user, scope, count: int) -> tuple[list, list[dict], str]:
    """(the excerpts shown, the model's valid cards, its label); no cards, to be filled from
    the text, when it gave nothing usable."""
    sources = retrieval.retrieve(user, scope)
    try:
        result = generator.generate_items(
            user,
            template="flashcards",
            schema=CardItem,
            count=count,
            key="cards",
            scope=scope,
            sources=sources,
            identity=same_card,
        )
    except NothingValid:
        backend = gateway.current_backend()
        return sources, [], f"{backend.name} · {backend.model}"
    items = [
        {
            "front": item.value.front,
            "back": item.value.back,
            "chunk_id": best_source(item.value, item.chunk_ids, sources),
        }
        for item in result.items
    ]
    return sources, items, f"{result.backend} · {result.model}".strip(" ·")


def words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.casefold()))


def best_source(card: CardItem, chunk_ids: list[int], sources) -> int | None:
    """The one excerpt a card keeps (so it can tell when its source changed): of those it
    cites (all the prompt's when it cites none), the one sharing most words with the card, the
    first on a tie; none when several share no word with it."""
    texts = {source.chunk_id: source.text for source in sources}
    known = [pk for pk in chunk_ids if pk in texts]
    if len(known) <= 1:
        return known[0] if known else None
    asked = words(f"{card.front} {card.back}")
    shared = {pk: len(asked & words(texts[pk])) for pk in known}
    best = max(known, key=shared.__getitem__)
    return best if shared[best] else None


def _from_text(user, scope, sources, *, have: list[dict], count: int) -> list[dict]:
    """Extractive cards for what `have` lacks of `count`, none repeating one of their fronts."""
    missing = count - len(have)
    if missing <= 0:
        return []
    passages = material.more_passages(user, scope, sources, count)
    vocabulary = material.vocabulary(user, scope, passages)
    taken = {same_card(CardItem(front=item["front"], back=item["back"])) for item in have}
    made = []
    for card in extractive_cards.cards(passages, vocabulary, count=count + len(have)):
        key = same_card(CardItem(front=card["front"], back=card["back"]))
        if key in taken:
            continue
        taken.add(key)
        made.append({**card, "extractive": True})
        if len(made) == missing:
            break
    return made
