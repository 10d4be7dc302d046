"""REST API for quizzes and workshops under /api/v1/study/ (decks and mindmaps beside them)."""

from datetime import datetime
from typing import Literal

from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from ninja import Field, Router, Schema, Status
from ninja.errors import HttpError

from apps.study import events, flashcards, generator, quiz, workshop
from apps.study import mindmap as drawing
from apps.study.models import Card, Deck, Lesson, Mindmap, Quiz, Workshop

router = Router(tags=["study"])

STATUS = {generator.EmptyScope: 400, generator.ModelDown: 503, generator.NothingValid: 502}


def _generation_error(error: generator.GenerationError) -> HttpError:
    return HttpError(STATUS.get(type(error), 502), str(error))


class ScopeIn(Schema):
    category_ids: list[int] = Field(default_factory=list, max_length=100)
    document_ids: list[int] = Field(default_factory=list, max_length=500)
    # The short forms of SPEC §10's table: one category, several documents.
    category: int | None = None
    documents: list[int] = Field(default_factory=list, max_length=500)

    @property
    def scope(self) -> generator.Scope:
        categories = self.category_ids + ([self.category] if self.category else [])
        return generator.Scope(categories, self.document_ids + self.documents)


class QuizIn(ScopeIn):
    num_questions: Literal[5, 10, 20] = 10
    difficulty: Literal["beginner", "intermediate", "advanced"] = "intermediate"
    types: list[Literal["mcq", "true_false"]] = Field(
        default_factory=lambda: ["mcq", "true_false"], min_length=1, max_length=2
    )


class QuestionOut(Schema):
    position: int
    type: str
    question: str
    options: list[str]
    chunk_ids: list[int]


class AttemptSummaryOut(Schema):
    id: int
    correct: int | None
    total: int | None
    percent: int | None
    submitted_at: datetime | None


class QuizOut(Schema):
    id: int
    title: str
    difficulty: str
    types: list[str]
    requested: int
    scope: dict
    backend: str
    model: str
    created_at: datetime
    workshop_id: int | None
    questions: list[QuestionOut]
    attempts: list[AttemptSummaryOut]


class QuizListOut(Schema):
    id: int
    title: str
    difficulty: str
    num_questions: int
    created_at: datetime


class AttemptIn(Schema):
    answers: list[int | None] = Field(max_length=20)


class ResultOut(Schema):
    position: int
    chosen: int | None
    correct_index: int
    correct: bool
    explanation: str
    chunk_ids: list[int]


class AttemptOut(Schema):
    id: int
    correct: int
    total: int
    percent: int
    results: list[ResultOut]
    badges: list[str]


def _quiz_out(item: Quiz) -> dict:
    return {
        **{field: getattr(item, field) for field in QuizOut.model_fields if hasattr(item, field)},
        "questions": [
            {
                "position": q.position,
                "type": q.kind,
                "question": q.text,
                "options": q.options,
                "chunk_ids": q.chunk_ids,
            }
            for q in item.questions.all()
        ],
        "attempts": [
            {
                "id": a.pk,
                "correct": a.correct,
                "total": a.total,
                "percent": a.percent,
                "submitted_at": a.submitted_at,
            }
            for a in item.attempts.all()
        ],
    }


@router.get("/quizzes", response=list[QuizListOut])
def list_quizzes(request: HttpRequest):
    return [
        {
            "id": item.pk,
            "title": item.title,
            "difficulty": item.difficulty,
            "num_questions": item.questions.count(),
            "created_at": item.created_at,
        }
        for item in Quiz.objects.visible_to(request.user)
    ]


@router.post("/quizzes", response={201: QuizOut})
def create_quiz(request: HttpRequest, payload: QuizIn):
    try:
        made = quiz.create_quiz(
            request.user,
            num_questions=payload.num_questions,
            difficulty=payload.difficulty,
            types=list(payload.types),
            scope=payload.scope,
        )
    except generator.GenerationError as error:
        raise _generation_error(error) from error
    except ValueError as error:
        raise HttpError(400, str(error)) from error
    return Status(201, _quiz_out(made))


@router.get("/quizzes/{quiz_id}", response=QuizOut)
def get_quiz(request: HttpRequest, quiz_id: int):
    return _quiz_out(get_object_or_404(Quiz.objects.visible_to(request.user), pk=quiz_id))


@router.post("/quizzes/{quiz_id}/attempts", response={201: AttemptOut})
def create_attempt(request: HttpRequest, quiz_id: int, payload: AttemptIn):
    item = get_object_or_404(Quiz.objects.visible_to(request.user), pk=quiz_id)
    questions = list(item.questions.all())
    if len(payload.answers) != len(questions):
        raise HttpError(400, f"Send one answer per question: {len(questions)} answers.")
    for question, answer in zip(questions, payload.answers, strict=True):
        if answer is not None and not 0 <= answer < len(question.options):
            raise HttpError(
                400, f"Answer {answer} is not an option of question {question.position}."
            )
    attempt = item.attempts.create(answers=list(payload.answers))
    attempt.submit()
    badges = events.quiz_completed(attempt)
    return Status(
        201,
        {
            "id": attempt.pk,
            "correct": attempt.correct,
            "total": attempt.total,
            "percent": attempt.percent,
            "results": [
                {
                    "position": question.position,
                    "chosen": chosen,
                    "correct_index": question.correct_index,
                    "correct": right,
                    "explanation": question.explanation,
                    "chunk_ids": question.chunk_ids,
                }
                for question, chosen, right in attempt.results()
            ],
            "badges": [getattr(badge, "code", str(badge)) for badge in badges],
        },
    )


@router.get("/quizzes/{quiz_id}/export", response={200: None})
def export_quiz(request: HttpRequest, quiz_id: int, format: Literal["md", "pdf"] = "md"):
    item = get_object_or_404(Quiz.objects.visible_to(request.user), pk=quiz_id)
    if format == "pdf":
        return HttpResponse(quiz.as_pdf(item), content_type="application/pdf")
    return HttpResponse(quiz.as_markdown(item), content_type="text/markdown; charset=utf-8")


# --- Workshops --------------------------------------------------------------------------------


class WorkshopIn(ScopeIn):
    num_lessons: Literal[5, 10] = 5


class LessonOut(Schema):
    number: int
    title: str
    summary: str
    status: str
    content: str
    error: str
    chunk_ids: list[int]
    completed_at: datetime | None


class WorkshopOut(Schema):
    id: int
    title: str
    summary: str
    requested: int
    scope: dict
    backend: str
    model: str
    created_at: datetime
    completed_at: datetime | None
    recap_quiz_id: int | None
    lessons: list[LessonOut]


class CompletionOut(Schema):
    number: int
    workshop_completed: bool
    badges: list[str]


def _workshop_out(item: Workshop) -> dict:
    recap = item.recap_quiz
    return {
        **{
            f: getattr(item, f)
            for f in WorkshopOut.model_fields
            if f not in ("lessons",) and hasattr(item, f)
        },  # fmt: skip
        "recap_quiz_id": recap.pk if recap else None,
        "lessons": list(item.lessons.all()),
    }


def _workshop(request: HttpRequest, workshop_id: int) -> Workshop:
    return get_object_or_404(Workshop.objects.visible_to(request.user), pk=workshop_id)


def _lesson(request: HttpRequest, workshop_id: int, number: int) -> Lesson:
    return get_object_or_404(_workshop(request, workshop_id).lessons, number=number)


@router.get("/workshops", response=list[WorkshopOut])
def list_workshops(request: HttpRequest):
    return [_workshop_out(item) for item in Workshop.objects.visible_to(request.user)]


@router.post("/workshops", response={201: WorkshopOut})
def create_workshop(request: HttpRequest, payload: WorkshopIn):
    try:
        made = workshop.create_workshop(
            request.user, num_lessons=payload.num_lessons, scope=payload.scope
        )
    except generator.GenerationError as error:
        raise _generation_error(error) from error
    events.outline_created(request.user)
    return Status(201, _workshop_out(made))


@router.get("/workshops/{workshop_id}", response=WorkshopOut)
def get_workshop(request: HttpRequest, workshop_id: int):
    return _workshop_out(_workshop(request, workshop_id))


@router.post("/workshops/{workshop_id}/lessons/{number}", response=LessonOut)
def write_lesson(request: HttpRequest, workshop_id: int, number: int):
    """The lesson, written by the model first if this is the first time it is opened."""
    lesson = _lesson(request, workshop_id, number)
    try:
        return workshop.write_lesson(lesson)
    except generator.GenerationError as error:
        raise _generation_error(error) from error


@router.post("/workshops/{workshop_id}/lessons/{number}/complete", response=CompletionOut)
def complete_lesson(request: HttpRequest, workshop_id: int, number: int):
    lesson = _lesson(request, workshop_id, number)
    if lesson.status != Lesson.Status.READY:
        raise HttpError(409, "Open the lesson first: it has not been written yet.")
    was_done = lesson.completed_at is not None
    finished = lesson.workshop.complete_lesson(lesson)
    badges = [] if was_done else events.lesson_completed(request.user)
    if finished:
        badges += events.workshop_completed(request.user)
    return {
        "number": number,
        "workshop_completed": finished,
        "badges": [getattr(badge, "code", str(badge)) for badge in badges],
    }


@router.post("/workshops/{workshop_id}/recap", response={201: QuizOut})
def create_recap(request: HttpRequest, workshop_id: int):
    item = _workshop(request, workshop_id)
    if item.completed_at is None:
        raise HttpError(409, "Complete every lesson first; the recap quiz comes at the end.")
    try:
        return Status(201, _quiz_out(item.recap_quiz or workshop.create_recap_quiz(item)))
    except generator.GenerationError as error:
        raise _generation_error(error) from error


@router.get("/workshops/{workshop_id}/export", response={200: None})
def export_workshop(request: HttpRequest, workshop_id: int, format: Literal["md", "pdf"] = "md"):
    item = _workshop(request, workshop_id)
    if format == "pdf":
        return HttpResponse(workshop.as_pdf(item), content_type="application/pdf")
    return HttpResponse(workshop.as_markdown(item), content_type="text/markdown; charset=utf-8")


# --- Flashcards and mindmaps ---------------------------------------------------------------


class CardIn(Schema):
    front: str = Field(..., min_length=1, max_length=Card.MAX_SIDE)
    back: str = Field(..., min_length=1, max_length=Card.MAX_SIDE)


class CardPatch(Schema):
    front: str | None = Field(None, min_length=1, max_length=Card.MAX_SIDE)
    back: str | None = Field(None, min_length=1, max_length=Card.MAX_SIDE)


class DeckIn(ScopeIn):
    """Generate from the vault (`num_cards` and a scope), or bring the `cards` yourself."""

    title: str = Field("", max_length=200)
    num_cards: Literal[10, 20, 40] = 10
    cards: list[CardIn] | None = Field(None, max_length=Deck.MAX_CARDS)


# Bodies of routes on one object validate after the ownership check: someone else's object
# answers 404 whatever was sent.
class DeckPatch(Schema):
    title: str | None = Field(None, min_length=1, max_length=200)


class CardOut(Schema):
    id: int
    position: int
    front: str
    back: str
    chunk_id: int | None
    state: Literal["learning", "review", "relearning"]
    due_at: datetime
    last_review_at: datetime | None
    mastered: bool
    flips: int

    @staticmethod
    def resolve_state(card: Card) -> str:
        return Card.State(card.state).name.lower()


class DeckSummaryOut(Schema):
    id: int
    title: str
    created_at: datetime
    card_count: int
    mastered_count: int
    due_count: int


class DeckOut(DeckSummaryOut):
    category_ids: list[int]
    document_ids: list[int]
    cards: list[CardOut]


class ReviewIn(Schema):
    outcome: Literal["got_it", "review"] | None = None


class ReviewOut(Schema):
    card: CardOut
    deck_mastered: bool


def deck_out(deck: Deck) -> dict:
    now = timezone.now()
    cards = list(deck.cards.all())
    return {
        "id": deck.pk,
        "title": deck.title,
        "created_at": deck.created_at,
        "category_ids": deck.category_ids,
        "document_ids": deck.document_ids,
        "card_count": len(cards),
        "mastered_count": sum(card.mastered for card in cards),
        "due_count": sum(card.due_at <= now for card in cards),
        "cards": cards,
    }


def own_deck(request: HttpRequest, deck_id: int) -> Deck:
    return get_object_or_404(Deck.objects.visible_to(request.auth), pk=deck_id)


def own_card(request: HttpRequest, deck_id: int, card_id: int) -> Card:
    return get_object_or_404(Card.objects.visible_to(request.auth), deck_id=deck_id, pk=card_id)


@router.get("/decks", response=list[DeckSummaryOut])
def list_decks(request: HttpRequest):
    return [
        {
            "id": d.pk,
            "title": d.title,
            "created_at": d.created_at,
            "card_count": d.card_count,
            "mastered_count": d.mastered_count,
            "due_count": d.due_count,
        }
        for d in Deck.objects.visible_to(request.auth).with_counts(timezone.now())
    ]


@router.post("/decks", response={201: DeckOut})
def create_deck(request: HttpRequest, payload: DeckIn):
    try:
        if payload.cards is None:
            deck = flashcards.generate_deck(
                request.auth,
                num_cards=payload.num_cards,
                scope=payload.scope,
                now=timezone.now(),
                title=payload.title.strip(),
            )
        else:
            deck = flashcards.create_deck(
                request.auth,
                payload.title or "Deck",
                [card.dict() for card in payload.cards],
                now=timezone.now(),
            )
            events.deck_created(request.auth)
    except generator.GenerationError as error:
        raise _generation_error(error) from error
    except flashcards.DeckError as error:
        raise HttpError(422, str(error)) from error
    return Status(201, deck_out(deck))


@router.get("/decks/due", response=list[CardOut])
def due_cards(request: HttpRequest):
    """Cards due now across all your decks, the most overdue first."""
    return Card.objects.visible_to(request.auth).due(timezone.now())


@router.get("/decks/{deck_id}", response=DeckOut)
def get_deck(request: HttpRequest, deck_id: int):
    return deck_out(own_deck(request, deck_id))


@router.patch("/decks/{deck_id}", response=DeckOut)
def rename_deck(request: HttpRequest, deck_id: int, payload: DeckPatch | None = None):
    deck = own_deck(request, deck_id)
    payload = payload or DeckPatch()
    if not payload.title or not payload.title.strip():
        raise HttpError(422, "Give the deck a title.")
    deck.title = payload.title.strip()
    deck.save(update_fields=["title", "updated_at"])
    return deck_out(deck)


@router.delete("/decks/{deck_id}", response={204: None})
def delete_deck(request: HttpRequest, deck_id: int):
    own_deck(request, deck_id).delete()
    return Status(204, None)


@router.post("/decks/{deck_id}/cards", response={201: CardOut})
def add_card(request: HttpRequest, deck_id: int, payload: CardPatch | None = None):
    deck = own_deck(request, deck_id)
    payload = payload or CardPatch()
    if not payload.front or not payload.back:
        raise HttpError(422, "A card needs a front and a back.")
    if deck.cards.count() >= Deck.MAX_CARDS:
        raise HttpError(422, f"A deck holds at most {Deck.MAX_CARDS} cards.")
    return Status(201, flashcards.add_card(deck, payload.front, payload.back, now=timezone.now()))


@router.patch("/decks/{deck_id}/cards/{card_id}", response=CardOut)
def edit_card(request: HttpRequest, deck_id: int, card_id: int, payload: CardPatch | None = None):
    card = own_card(request, deck_id, card_id)
    payload = payload or CardPatch()
    card.front = payload.front or card.front
    card.back = payload.back or card.back
    card.save(update_fields=["front", "back"])
    return card


@router.delete("/decks/{deck_id}/cards/{card_id}", response={204: None})
def delete_card(request: HttpRequest, deck_id: int, card_id: int):
    own_card(request, deck_id, card_id).delete()
    return Status(204, None)


@router.post("/decks/{deck_id}/cards/{card_id}/review", response=ReviewOut)
def review_card(request: HttpRequest, deck_id: int, card_id: int, payload: ReviewIn | None = None):
    card = own_card(request, deck_id, card_id)
    payload = payload or ReviewIn()
    if payload.outcome is None:
        raise HttpError(422, 'Send {"outcome": "got_it"} or {"outcome": "review"}.')
    with transaction.atomic():
        was_mastered = card.deck.is_mastered()
        flashcards.review(card, payload.outcome, now=timezone.now())
        mastered = card.deck.is_mastered()
    events.card_flipped(request.auth, mastered_deck=mastered and not was_mastered)
    return {"card": card, "deck_mastered": mastered}


@router.get("/decks/{deck_id}/export.{fmt}", response={200: None})
def export_deck(request: HttpRequest, deck_id: int, fmt: Literal["csv", "apkg"]):
    deck = own_deck(request, deck_id)
    if fmt == "csv":
        response = HttpResponse(flashcards.export_csv(deck), content_type="text/csv")
    else:
        response = HttpResponse(flashcards.export_apkg(deck), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="deck-{deck.pk}.{fmt}"'
    return response


class MindmapIn(ScopeIn):
    """Generate from the vault (a scope), or bring the `tree` yourself."""

    title: str | None = Field(None, max_length=200)
    tree: dict | None = None


class MindmapPatch(Schema):
    title: str | None = Field(None, min_length=1, max_length=200)
    layout: Literal["lr", "tb", "radial"] | None = None


class NodeIn(Schema):
    node: str = Field("", max_length=40)


class PositionIn(NodeIn):
    layout: Literal["lr", "tb", "radial"] | None = None
    x: float = Field(0, ge=-drawing.POSITION_LIMIT, le=drawing.POSITION_LIMIT)
    y: float = Field(0, ge=-drawing.POSITION_LIMIT, le=drawing.POSITION_LIMIT)


class MindmapOut(Schema):
    id: int
    title: str
    layout: str
    tree: dict
    positions: dict
    collapsed: list[str]
    created_at: datetime
    svg_url: str

    @staticmethod
    def resolve_svg_url(mindmap: Mindmap) -> str:
        return f"/api/v1/study/mindmaps/{mindmap.pk}.svg"


def own_mindmap(request: HttpRequest, mindmap_id: int) -> Mindmap:
    return get_object_or_404(Mindmap.objects.visible_to(request.auth), pk=mindmap_id)


@router.get("/mindmaps", response=list[MindmapOut])
def list_mindmaps(request: HttpRequest):
    return Mindmap.objects.visible_to(request.auth)


@router.post("/mindmaps", response={201: MindmapOut})
def create_mindmap(request: HttpRequest, payload: MindmapIn):
    title = (payload.title or "").strip()
    try:
        if payload.tree is None:
            mindmap = drawing.generate(request.auth, payload.scope, title)
        else:
            tree = drawing.clean_tree(payload.tree)
            mindmap = Mindmap.objects.create(
                owner=request.auth, title=(title or tree["title"])[:200], tree=tree
            )
            events.mindmap_created(request.auth)
    except generator.GenerationError as error:
        raise _generation_error(error) from error
    except drawing.MindmapError as error:
        raise HttpError(422, str(error)) from error
    return Status(201, mindmap)


@router.get("/mindmaps/{int:mindmap_id}", response=MindmapOut)
def get_mindmap(request: HttpRequest, mindmap_id: int):
    return own_mindmap(request, mindmap_id)


@router.get("/mindmaps/{int:mindmap_id}.svg", response={200: None})
def mindmap_svg(request: HttpRequest, mindmap_id: int):
    """The same SVG the page shows, in the saved layout and arrangement."""
    svg = drawing.render_svg(own_mindmap(request, mindmap_id))
    return HttpResponse(svg, content_type="image/svg+xml")


@router.patch("/mindmaps/{int:mindmap_id}", response=MindmapOut)
def update_mindmap(request: HttpRequest, mindmap_id: int, payload: MindmapPatch | None = None):
    mindmap = own_mindmap(request, mindmap_id)
    payload = payload or MindmapPatch()
    if payload.title:
        mindmap.title = payload.title
    if payload.layout:
        mindmap.layout = payload.layout
    mindmap.save(update_fields=["title", "layout", "updated_at"])
    return mindmap


@router.delete("/mindmaps/{int:mindmap_id}", response={204: None})
def delete_mindmap(request: HttpRequest, mindmap_id: int):
    own_mindmap(request, mindmap_id).delete()
    return Status(204, None)


@router.post("/mindmaps/{int:mindmap_id}/positions", response=MindmapOut)
def move_node(request: HttpRequest, mindmap_id: int, payload: PositionIn | None = None):
    mindmap = own_mindmap(request, mindmap_id)
    payload = payload or PositionIn()
    try:
        mindmap.move_node(payload.node, payload.layout or mindmap.layout, payload.x, payload.y)
    except KeyError as error:
        raise HttpError(422, f"No node {payload.node!r} in this mindmap.") from error
    return mindmap


@router.delete("/mindmaps/{int:mindmap_id}/positions", response=MindmapOut)
def reset_layout(request: HttpRequest, mindmap_id: int):
    mindmap = own_mindmap(request, mindmap_id)
    mindmap.reset_layout()
    return mindmap


@router.post("/mindmaps/{int:mindmap_id}/collapsed", response=MindmapOut)
def toggle_branch(request: HttpRequest, mindmap_id: int, payload: NodeIn | None = None):
    mindmap = own_mindmap(request, mindmap_id)
    payload = payload or NodeIn()
    try:
        mindmap.toggle(payload.node)
    except KeyError as error:
        raise HttpError(422, f"No node {payload.node!r} in this mindmap.") from error
    return mindmap


# --- end of flashcards and mindmaps ---------------------------------------------------------
