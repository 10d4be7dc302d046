"""Quizzes: what a valid generated question is, and making a quiz from a scope."""

import random
import re
from collections import Counter
from collections.abc import Sequence
from typing import Literal

from django.db import transaction
from pydantic import BaseModel, StrictInt, ValidationInfo, field_validator, model_validator

from apps.llm import gateway
from apps.study import generator, parsing, retrieval, starting
from apps.study.errors import InvalidInput, NothingValid, StudyError
from apps.study.extractive import material
from apps.study.extractive import quizzes as extractive_quizzes
from apps.study.quizzes.models import Difficulty, Question, Quiz
from apps.study.sources import scope_title

TYPES = ("mcq", "true_false")
OPTION_COUNT = {"mcq": 4, "true_false": 2}
DIFFICULTY_HINTS = {
    "beginner": "Ask about basic facts and definitions stated plainly in the material.",
    "intermediate": "Ask about how the ideas connect and what follows from them.",
    "advanced": "Ask about details, exceptions and applying the ideas to a new case.",
}
_NUMBERING = re.compile(r"^\s*(?:question\s*)?\d{1,2}\s*[.):-]\s*", re.IGNORECASE)


class QuestionItem(BaseModel):
    """One question as the model must return it; anything else is dropped."""

    type: Literal["mcq", "true_false"]
    question: str
    options: list[str]
    correct_index: StrictInt
    explanation: str

    @field_validator("question", "explanation")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        value = _NUMBERING.sub("", value.strip()).strip()
        if not value:
            raise ValueError("empty")
        return value[:2000]

    @field_validator("options")
    @classmethod
    def _clean_options(cls, options: list[str]) -> list[str]:
        options = [option.strip()[:500] for option in options]
        if any(not option for option in options):
            raise ValueError("empty option")
        if len({option.casefold() for option in options}) != len(options):
            raise ValueError("repeated option")
        return options

    @model_validator(mode="after")
    def _shape(self, info: ValidationInfo) -> "QuestionItem":
        allowed = (info.context or {}).get("types", TYPES)
        if self.type not in allowed:
            raise ValueError(f"type {self.type} was not asked for")
        if len(self.options) != OPTION_COUNT[self.type]:
            raise ValueError(f"{self.type} needs {OPTION_COUNT[self.type]} options")
        if not 0 <= self.correct_index < len(self.options):
            raise ValueError("correct_index out of range")
        return self


def same_question(item: QuestionItem) -> str:
    return re.sub(r"\W+", " ", item.question.casefold()).strip()


def start_quiz(
    user,
    *,
    num_questions: int,
    difficulty: str,
    types: list[str],
    scope: generator.Scope = generator.WHOLE_VAULT,
    method: str | None = None,
    key: str = "",
    workshop=None,
    checked: bool = False,
) -> tuple[Quiz, bool]:
    """Check what is asked (a size we make, a scope with text) and store the quiz as
    "generating" for a worker to fill (fill_quiz); (the quiz, new?). The same request `key`
    gives back the quiz it made before. Raises a StudyError with a readable message."""
    if num_questions not in Quiz.SIZES:
        raise InvalidInput(f"A quiz has {', '.join(map(str, Quiz.SIZES))} questions.")
    if difficulty not in Difficulty.values:
        raise InvalidInput("Difficulty is beginner, intermediate or advanced.")
    types = [kind for kind in TYPES if kind in types]
    if not types:
        raise InvalidInput("Choose multiple choice, true/false or both.")
    if not checked:
        retrieval.check_scope(user, scope)
    source = scope_title(user, scope)
    title = f"Recap: {workshop.title}" if workshop else f"Quiz on {source}"
    return starting.create(
        Quiz,
        user,
        key,
        title=title[:200],
        difficulty=difficulty,
        types=types,
        requested=num_questions,
        scope=scope.as_dict(),
        workshop=workshop,
        asked={"method": method, "source": source},
    )


def fill_quiz(quiz: Quiz, sources: list[retrieval.Source] | None = None) -> None:
    """Generate the questions of a quiz started by start_quiz and store them, ready.

    `method` "extractive" cuts every question from the documents; "model" asks the model and
    fills what it fell short of with extractive questions (marked `extractive`); not given,
    extractive when the embedded model would answer."""
    user, scope = quiz.owner, generator.Scope(**quiz.scope)
    asked = dict(count=quiz.requested, types=quiz.types, difficulty=quiz.difficulty)
    if generator.choose_method(quiz.asked.get("method")) == generator.EXTRACTIVE:
        passages = sources or material.passages(user, scope, quiz.requested)
        result = generator.Result([], passages, generator.EXTRACTIVE, TEXT_LABEL)
    else:
        result = _from_model(user, scope, sources, **asked)
    filled = _from_text(user, scope, result.sources, have=result.items, **asked)
    if not result.items and not filled:
        raise NothingValid(
            "No question could be made: the documents in this scope hold too few sentences "
            "with key terms. Pick more documents, or another scope."
        )
    made = [(item, False) for item in result.items] + [(item, True) for item in filled]
    backend, model = result.backend, result.model
    if not result.items:  # the model wrote none of them: the quiz says they were cut from text
        backend, model = generator.EXTRACTIVE, TEXT_LABEL
    placed = place_answers([item.value for item, _ in made], random.Random(quiz.pk))
    with transaction.atomic():
        Question.objects.bulk_create(
            Question(
                quiz=quiz,
                position=position,
                kind=item.value.type,
                text=item.value.question,
                options=options,
                correct_index=correct_index,
                explanation=item.value.explanation,
                chunk_ids=item.chunk_ids,
                extractive=extractive,
            )
            for position, ((item, extractive), (options, correct_index)) in enumerate(
                zip(made, placed, strict=True)
            )
        )
        quiz.mark_ready(chunk_ids=result.chunk_ids, backend=backend, model=model)


def place_answers(
    items: list[QuestionItem], rng: random.Random, taken: Sequence[int] = ()
) -> list[tuple[list[str], int]]:
    """(options, correct index) of each question as stored: a multiple-choice question's options
    shuffled by `rng`, its answer drawn among the letters that hold fewer than half the quiz's
    answers (`taken`: the correct indexes of its other questions) and fewer than half of its
    multiple-choice answers, so the right answer can be anywhere and no letter gives it away.
    True/false keeps its order, True first: what its statements say balances it."""
    counts = Counter(taken)
    counts.update(item.correct_index for item in items if item.type != "mcq")
    most = max(1, (len(items) + len(taken)) // 2)
    choices = Counter()  # the multiple-choice answers' letters, of these items
    most_choices = max(1, sum(item.type == "mcq" for item in items) // 2)
    placed = []
    for item in items:
        options, correct = list(item.options), item.correct_index
        if item.type == "mcq":
            answer = options.pop(correct)
            rng.shuffle(options)
            letters = range(len(options) + 1)
            open_ = [i for i in letters if counts[i] < most and choices[i] < most_choices] or [
                min(letters, key=lambda i: (counts[i], choices[i]))
            ]
            correct = rng.choice(open_)
            options.insert(correct, answer)
            counts[correct] += 1
            choices[correct] += 1
        placed.append((options, correct))
    return placed


def create_quiz(
    user,
    *,
    num_questions: int,
    difficulty: str,
    types: list[str],
    scope: generator.Scope = generator.WHOLE_VAULT,
    workshop=None,
    sources: list[retrieval.Source] | None = None,
    method: str | None = None,
) -> Quiz:
    """Start and fill a quiz here and now (the workshop's recap quiz); nothing is kept when
    it fails. Raises a StudyError with a readable message."""
    quiz, _ = start_quiz(
        user,
        num_questions=num_questions,
        difficulty=difficulty,
        types=types,
        scope=scope,
        method=method,
        workshop=workshop,
        checked=bool(sources),
    )
    try:
        fill_quiz(quiz, sources)
    except StudyError:
        quiz.delete()
        raise
    return quiz


# How material cut from the documents is labelled where a model name would stand.
TEXT_LABEL = "from the documents' text"


def _from_model(user, scope, sources, *, count, types, difficulty) -> generator.Result:
    """The model's valid questions; none (to be filled from the text) when it gave nothing
    usable."""
    names = {"mcq": "multiple choice (mcq)", "true_false": "true/false (true_false)"}
    sources = sources or retrieval.retrieve(user, scope)
    try:
        return generator.generate_items(
            user,
            template="quiz",
            schema=QuestionItem,
            count=count,
            key="questions",
            scope=scope,
            sources=sources,
            values={
                "difficulty": difficulty,
                "difficulty_hint": DIFFICULTY_HINTS[difficulty],
                "types": " and ".join(names[kind] for kind in types),
            },
            identity=same_question,
            context={"types": types},
        )
    except NothingValid:
        backend = gateway.current_backend()
        return generator.Result([], list(sources), backend.name, backend.model)


def _from_text(user, scope, sources, *, have, count, types, difficulty) -> list[parsing.Item]:
    """Extractive questions for what `have` lacks of `count`, none repeating one of them."""
    missing = count - len(have)
    if missing <= 0:
        return []
    passages = material.more_passages(user, scope, sources, count)
    vocabulary = material.vocabulary(user, scope, passages)
    taken = {same_question(item.value) for item in have}
    answers = {item.value.options[item.value.correct_index].casefold() for item in have}
    made: list[parsing.Item] = []
    for raw in extractive_quizzes.questions(
        passages, vocabulary, count=count + len(have), types=types, difficulty=difficulty
    ):
        value = QuestionItem.model_validate(raw, context={"types": types})
        answer = value.options[value.correct_index].casefold()
        if same_question(value) in taken or (value.type == "mcq" and answer in answers):
            continue
        taken.add(same_question(value))
        made.append(parsing.Item(value, raw["chunk_ids"]))
        if len(made) == missing:
            break
    return made
