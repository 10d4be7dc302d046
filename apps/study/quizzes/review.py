"""A submitted attempt as its taker reviews it: in their own order, with its score only when the
quiz's policy shows their marks (Seat.marks_shown), and with the correct answers and
explanations only when it shows the answer key (Seat.answers_shown).

The review page and the API's attempt reply both read these rows, so neither can show more.
"""

from dataclasses import dataclass

from apps.study.quizzes.models import Attempt
from apps.study.quizzes.paper import Shown
from apps.study.quizzes.seat import Seat


@dataclass(frozen=True)
class ReviewRow:
    question: Shown  # text and options in the taker's order
    position: int  # in the taker's order, from 0
    chosen: int | None  # the option chosen, as shown
    correct_index: int | None  # as shown; None while the answer key is hidden
    right: bool | None  # None while the answer key is hidden
    explanation: str | None  # None while the answer key is hidden


def shown_results(attempt: Attempt, seat: Seat) -> list[ReviewRow]:
    """The attempt's answers to the questions still in the quiz, in the order of the seat's
    paper."""
    paper, key = seat.paper, seat.answers_shown
    answered = [(q, chosen, right) for q, chosen, right in attempt.results() if q.pk in paper.by_pk]
    answered.sort(key=lambda row: paper.rank[row[0].pk])
    rows = []
    for question, chosen, right in answered:
        shown = paper.by_pk[question.pk]
        rows.append(
            ReviewRow(
                question=shown,
                position=paper.rank[question.pk],
                chosen=shown.shown(chosen),
                correct_index=shown.correct_index if key else None,
                right=right if key else None,
                explanation=question.explanation if key else None,
            )
        )
    return rows


def score(attempt: Attempt, seat: Seat) -> dict:
    """The attempt's score as its taker may see it: how many were right, and the percent, are
    None while their marks are hidden (the total is the number of questions asked)."""
    shown = seat.marks_shown
    return {
        "correct": attempt.correct if shown else None,
        "total": attempt.total,
        "percent": attempt.percent if shown else None,
    }
