"""Quizzes: what a valid generated question is, and making a quiz from a scope."""

import re
from typing import Literal

from django.db import transaction
from pydantic import BaseModel, StrictInt, ValidationInfo, field_validator, model_validator

from apps.study import generator
from apps.study.errors import InvalidInput
from apps.study.quizzes.models import Difficulty, Question, Quiz

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


def scope_title(user, scope: generator.Scope) -> str:
    names = [category.name for category in scope.categories()]
    names += [document.filename for document in scope.chosen_documents(user)]
    if not names:
        return "your vault"
    title = ", ".join(names[:3])
    return title + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def create_quiz(
    user,
    *,
    num_questions: int,
    difficulty: str,
    types: list[str],
    scope: generator.Scope = generator.WHOLE_VAULT,
    workshop=None,
    sources: list[generator.Source] | None = None,
) -> Quiz:
    """Generate and store a quiz; raises a StudyError with a readable message."""
    if num_questions not in Quiz.SIZES:
        raise InvalidInput(f"A quiz has {', '.join(map(str, Quiz.SIZES))} questions.")
    if difficulty not in Difficulty.values:
        raise InvalidInput("Difficulty is beginner, intermediate or advanced.")
    types = [kind for kind in TYPES if kind in types]
    if not types:
        raise InvalidInput("Choose multiple choice, true/false or both.")
    names = {"mcq": "multiple choice (mcq)", "true_false": "true/false (true_false)"}
    result = generator.generate_items(
        user,
        template="quiz",
        schema=QuestionItem,
        count=num_questions,
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
    title = f"Recap: {workshop.title}" if workshop else f"Quiz on {scope_title(user, scope)}"
    with transaction.atomic():
        quiz = Quiz.objects.create(
            owner=user,
            title=title[:200],
            difficulty=difficulty,
            types=types,
            requested=num_questions,
            scope=scope.as_dict(),
            chunk_ids=result.chunk_ids,
            workshop=workshop,
            backend=result.backend,
            model=result.model,
        )
        Question.objects.bulk_create(
            Question(
                quiz=quiz,
                position=position,
                kind=item.value.type,
                text=item.value.question,
                options=item.value.options,
                correct_index=item.value.correct_index,
                explanation=item.value.explanation,
                chunk_ids=item.chunk_ids,
            )
            for position, item in enumerate(result.items)
        )
    return quiz
