"""The order a student sees a class quiz in: the questions and the options of each multiple
choice question shuffled per student, the same on every visit and attempt of that student.

Attempts keep and grade answers in the quiz's own order; a Paper maps a student's shown
positions and options back to it (and forth for their review). The seed is an HMAC of the
student, the quiz and the question with the SECRET_KEY: nothing to store, and a question
keeps its place when another is removed.
"""

import hashlib
import hmac
import random
from dataclasses import dataclass

from django.conf import settings

from apps.study.errors import InvalidAnswers


def seed(*parts: object) -> int:
    message = ":".join(str(part) for part in parts).encode()
    digest = hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True)
class Shown:
    """One question as a student sees it; `order[shown option] = the option's index`."""

    question: object  # a quizzes.models.Question
    position: int  # its place in the quiz's own order
    order: tuple[int, ...]

    @property
    def pk(self) -> int:
        return self.question.pk

    @property
    def text(self) -> str:
        return self.question.text

    @property
    def extractive(self) -> bool:
        return self.question.extractive

    @property
    def options(self) -> list[str]:
        return [self.question.options[i] for i in self.order]

    @property
    def correct_index(self) -> int:
        return self.order.index(self.question.correct_index)

    def original(self, choice: int | None) -> int | None:
        return None if choice is None else self.order[choice]

    def shown(self, choice: int | None) -> int | None:
        if choice is None or choice not in self.order:
            return None
        return self.order.index(choice)


class Paper:
    """The questions of `quiz` in the order `student` sees them (the quiz's own order and
    options for anyone else)."""

    def __init__(self, quiz, student=None):
        questions = list(quiz.questions.all())
        rows = []
        for position, question in enumerate(questions):
            order = list(range(len(question.options)))
            if student is not None and question.kind == "mcq":
                random.Random(seed(student.pk, quiz.pk, question.pk)).shuffle(order)
            rows.append(Shown(question, position, tuple(order)))
        if student is not None:
            rows.sort(key=lambda row: seed(student.pk, quiz.pk, row.question.pk, "place"))
        self.questions = rows
        self.by_pk = {row.question.pk: row for row in rows}
        self.rank = {row.question.pk: rank for rank, row in enumerate(rows)}

    def __len__(self) -> int:
        return len(self.questions)

    def at(self, position: int) -> Shown:
        if not 0 <= position < len(self.questions):
            raise InvalidAnswers("There is no such question in this quiz.")
        return self.questions[position]

    def to_original(self, answers: list) -> list[int | None]:
        """Answers in the shown order (each an option as shown, or None) as the quiz's own
        answers; anything that does not fit is refused as Quiz.check_answers refuses it."""
        if len(answers) != len(self.questions):
            raise InvalidAnswers(f"Send one answer per question: {len(self.questions)} answers.")
        original: list[int | None] = [None] * len(self.questions)
        for number, (row, answer) in enumerate(zip(self.questions, answers, strict=True), 1):
            if not row.question.accepts(answer):
                raise InvalidAnswers(f"Answer {answer} is not an option of question {number}.")
            original[row.position] = row.original(answer)
        return original

    def to_shown(self, answers: list) -> list[int | None]:
        """The quiz's own answers (one per question in its order) in the shown order."""
        padded = (list(answers) + [None] * len(self.questions))[: len(self.questions)]
        return [row.shown(padded[row.position]) for row in self.questions]
