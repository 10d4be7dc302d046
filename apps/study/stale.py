"""Study items whose source changed: re-ingesting a changed file retires its chunks, and every
question, card, lesson and mindmap node keeps the chunk it came from, so it can tell. Each shows
"source changed" with the passage that now answers it (hybrid search for the item's own text
within its scope), and one action refreshes only those items: one whose text is still in the new
passage just points there; otherwise it is cut again from the new passage (extractive), or, for a
lesson the model wrote, written again when it is next opened. Reviews, attempts and scores stay.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

from django.db.models import F

from apps.llm import gateway
from apps.study import generator
from apps.study.extractive import cards as extractive_cards
from apps.study.extractive import lessons as extractive_lessons
from apps.study.extractive import material
from apps.study.extractive import quizzes as extractive_quizzes
from apps.study.extractive.structure import note_for
from apps.study.flashcards.models import Card, Deck
from apps.study.mindmaps.models import Mindmap
from apps.study.mindmaps.tree import walk
from apps.study.quizzes.models import Question, Quiz
from apps.study.workshops.models import Lesson, Workshop
from apps.vault.errors import ScopeError
from apps.vault.keyterms import Vocabulary
from apps.vault.models import Chunk
from apps.vault.search.query import search as search_chunks

K = TypeVar("K")


def current(chunk_ids: Iterable[int]):
    """Those of the chunks that still belong to their document's current version."""
    ids = {pk for pk in chunk_ids if isinstance(pk, int)}  # many items cite the same chunks
    return Chunk.objects.filter(pk__in=ids, document_sha256=F("document__sha256"))


def live(chunk_ids: Iterable[int]) -> set[int]:
    return set(current(chunk_ids).values_list("pk", flat=True))


def live_texts(chunk_ids: Iterable[int]) -> str:
    """The text of the live chunks among these, joined (to check an item is still in them)."""
    return "\n".join(current(chunk_ids).values_list("text", flat=True))


def cites_retired(chunk_ids: list[int], alive: set[int]) -> bool:
    return bool(chunk_ids) and not set(chunk_ids) <= alive


# --- What is stale ------------------------------------------------------------------------------


def stale_questions(quiz: Quiz) -> list[Question]:
    questions = list(quiz.questions.all())
    alive = live(pk for q in questions for pk in q.chunk_ids)
    return [q for q in questions if cites_retired(q.chunk_ids, alive)]


def stale_cards(deck: Deck) -> list[Card]:
    cards = [card for card in deck.cards.all() if card.source_chunk_id]
    alive = live(card.source_chunk_id for card in cards)
    return [card for card in cards if card.source_chunk_id not in alive]


def stale_lessons(workshop: Workshop) -> list[Lesson]:
    lessons = list(workshop.lessons.all())
    alive = live(pk for lesson in lessons for pk in lesson.chunk_ids)
    return [lesson for lesson in lessons if cites_retired(lesson.chunk_ids, alive)]


def stale_nodes(mindmap: Mindmap) -> list[tuple[str, dict]]:
    nodes = [(node_id, node) for node_id, node, _, _ in walk(mindmap.tree)]
    alive = live(node.get("source") for _, node in nodes)
    return [
        (node_id, node)
        for node_id, node in nodes
        if isinstance(node.get("source"), int) and node["source"] not in alive
    ]


@dataclass(frozen=True)
class Counts:
    questions: int
    cards: int
    lessons: int
    nodes: int

    @property
    def total(self) -> int:
        return self.questions + self.cards + self.lessons + self.nodes


def counts(user) -> Counts:
    """How many of the user's items cite a retired chunk, for the Study Hub."""
    questions = Question.objects.filter(quiz__owner=user).values_list("chunk_ids", flat=True)
    question_ids = [ids for ids in questions if ids]
    card_ids = list(
        Card.objects.filter(deck__owner=user, source_chunk_id__isnull=False).values_list(
            "source_chunk_id", flat=True
        )
    )
    lesson_ids = [
        ids
        for ids in Lesson.objects.filter(workshop__owner=user).values_list("chunk_ids", flat=True)
        if ids
    ]
    node_ids = [
        [node["source"] for _, node, _, _ in walk(tree) if isinstance(node.get("source"), int)]
        for tree in Mindmap.objects.filter(owner=user).values_list("tree", flat=True)
    ]
    every = [pk for ids in question_ids + lesson_ids + node_ids for pk in ids] + card_ids
    alive = live(every)
    return Counts(
        questions=sum(cites_retired(ids, alive) for ids in question_ids),
        cards=sum(pk not in alive for pk in card_ids),
        lessons=sum(cites_retired(ids, alive) for ids in lesson_ids),
        nodes=sum(pk not in alive for ids in node_ids for pk in ids),
    )


# --- The passage that answers it now ------------------------------------------------------------


def scope_of(user, scope: dict) -> generator.Scope:
    """The item's scope, or the whole vault when a chosen document or category is gone."""
    chosen = generator.Scope(
        category_ids=scope.get("category_ids", []), document_ids=scope.get("document_ids", [])
    )
    try:
        chosen.documents(user)
    except ScopeError:
        return generator.WHOLE_VAULT
    return chosen


def scope_for(material: Quiz | Deck | Workshop | Mindmap) -> generator.Scope:
    """The scope a quiz, deck, workshop or mindmap was made from."""
    if isinstance(material, Quiz | Workshop):
        return scope_of(material.owner, material.scope)
    chosen = {"category_ids": material.category_ids, "document_ids": material.document_ids}
    return scope_of(material.owner, chosen)


# What search is asked for each kind of item, on the page and when refreshing alike.
def question_text(question: Question) -> str:
    return question.explanation or question.text


def card_text(card: Card) -> str:
    return f"{card.front} {card.back}"


def lesson_text(lesson: Lesson) -> str:
    return f"{lesson.title} {lesson.summary}"


def node_text(node: dict) -> str:
    return node["title"]


def replacement(user, text: str, scope: generator.Scope) -> generator.Source | None:
    """The live passage that best answers `text` now (None when search finds nothing)."""
    found = candidates(user, text, scope, k=1)
    return found[0] if found else None


def candidates(user, text: str, scope: generator.Scope, k: int = 3) -> list[generator.Source]:
    """The live passages that best answer `text` now, best first (to cut a new item from)."""
    try:
        hits = search_chunks(user, text[:1000], k=k, scope=scope)
    except (gateway.ModelUnavailable, gateway.ModelError, ScopeError):
        return []
    return [
        generator.Source(
            hit.chunk_id, hit.document_id, hit.filename, hit.page, hit.section or "", hit.text
        )
        for hit in hits
    ]


def passages_now(
    material: Quiz | Deck | Workshop | Mindmap, texts: dict[K, str]
) -> dict[K, generator.Source | None]:
    """{key: the live passage that best answers the item's text now} for {key: its text}: what
    every page shows beside a stale item of `material` (searched within its scope)."""
    scope = scope_for(material)
    return {key: replacement(material.owner, text, scope) for key, text in texts.items()}


# --- Refreshing only the stale items ---------------------------------------------------------


def refresh_quiz(quiz: Quiz) -> int:
    """Point or cut again each question whose source changed; how many were refreshed."""
    scope = scope_for(quiz)
    refreshed = 0
    for question in stale_questions(quiz):
        for passage in candidates(quiz.owner, question_text(question), scope):
            if question.explanation and question.explanation in passage.text:
                question.chunk_ids = [passage.chunk_id]
            else:
                made = _question_from(quiz, question, passage)
                if made is None:
                    continue
                question.text, question.options = made["question"], made["options"]
                question.correct_index = made["correct_index"]
                question.explanation, question.kind = made["explanation"], made["type"]
                question.chunk_ids, question.extractive = made["chunk_ids"], True
                question.version += 1  # a new question: attempts before answered the old one
            question.save()
            refreshed += 1
            break
    return refreshed


def _vocabulary(user, scope: generator.Scope, passages: list[generator.Source]) -> Vocabulary:
    return material.vocabulary(user, scope, passages)


def _question_from(quiz: Quiz, question: Question, passage: generator.Source) -> dict | None:
    vocabulary = _vocabulary(quiz.owner, scope_for(quiz), [passage])
    taken = {other.text for other in quiz.questions.exclude(pk=question.pk)}
    for kinds in ([question.kind], list(quiz.types)):
        for made in extractive_quizzes.questions(
            [passage], vocabulary, count=5, types=kinds, difficulty=quiz.difficulty
        ):
            if made["question"] not in taken:
                return made
    return None


def refresh_deck(deck: Deck) -> int:
    """Point or cut again each card whose source changed; its reviews and schedule stay."""
    scope = scope_for(deck)
    refreshed = 0
    fronts = {card.front.casefold() for card in deck.cards.all()}
    for card in stale_cards(deck):
        for passage in candidates(deck.owner, card_text(card), scope):
            if card.back not in passage.text:
                vocabulary = _vocabulary(deck.owner, scope, [passage])
                made = next(
                    (
                        c
                        for c in extractive_cards.cards([passage], vocabulary, count=10)
                        if c["front"].casefold() not in fronts
                    ),
                    None,
                )
                if made is None:
                    continue
                fronts.add(made["front"].casefold())
                card.front, card.back, card.extractive = made["front"], made["back"], True
            card.chunk_id = card.source_chunk_id = passage.chunk_id
            card.save(update_fields=["front", "back", "extractive", "chunk", "source_chunk_id"])
            refreshed += 1
            break
    return refreshed


def refresh_workshop(workshop: Workshop) -> int:
    """Each stale lesson reads the passages that answer its title now: an extractive lesson is
    cut again at once, one the model wrote is written again when next opened."""
    scope = scope_for(workshop)
    refreshed = 0
    for lesson in stale_lessons(workshop):
        alive = live(lesson.chunk_ids)
        kept = [pk for pk in lesson.chunk_ids if pk in alive]
        try:
            hits = search_chunks(
                workshop.owner,
                lesson_text(lesson),
                k=max(1, len(lesson.chunk_ids) - len(kept)),
                scope=scope,
            )
        except (gateway.ModelUnavailable, gateway.ModelError, ScopeError):
            continue
        chunk_ids = kept + [hit.chunk_id for hit in hits if hit.chunk_id not in kept]
        if not chunk_ids:
            continue
        lesson.chunk_ids = chunk_ids
        if lesson.extractive or workshop.backend == generator.EXTRACTIVE:
            chunks = Chunk.objects.select_related("document").in_bulk(chunk_ids)
            passages = [
                generator.Source(
                    pk,
                    chunks[pk].document_id,
                    chunks[pk].document.filename,
                    chunks[pk].page,
                    chunks[pk].section,
                    chunks[pk].text,
                )
                for pk in sorted(
                    chunk_ids, key=lambda pk: (chunks[pk].document_id, chunks[pk].ordinal)
                )
            ]
            vocabulary = _vocabulary(workshop.owner, scope, passages)
            lesson.content = extractive_lessons.lesson(passages, vocabulary)
        else:
            lesson.content, lesson.status = "", Lesson.Status.PENDING
        lesson.save(update_fields=["chunk_ids", "content", "status"])
        refreshed += 1
    return refreshed


def refresh_mindmap(mindmap: Mindmap) -> int:
    """Each stale node cites the passage that answers its title now; its note follows."""
    scope = scope_for(mindmap)
    refreshed = 0
    tree = mindmap.tree
    for _, node in stale_nodes(mindmap):
        passage = replacement(mindmap.owner, node_text(node), scope)
        if passage is None:
            continue
        node["source"] = passage.chunk_id
        if node.get("note"):
            node["note"] = note_for(passage.text) or node["note"]
        refreshed += 1
    if refreshed:
        mindmap.tree = tree
        mindmap.save(update_fields=["tree", "updated_at"])
    return refreshed
