"""What the class did with a set: each student's own figures and what the class misses most.

Only for the teacher who handed the set out; a student sees their own row (`figures_of`).
Quiz figures are graded by the set's policy (first, best, average or latest attempt; the
report per attempt and per question is quiz_report.py); a question counts as missed
in an attempt that answered its current version wrong (an attempt on an older version of a
changed question does not count against the new one). Deck figures are what FSRS says each
student remembers, reviewed on two days at least (deck_memory.py), and the cards answered
"review" most; workshop figures are lessons
completed; a mindmap has only "started" (the student arranged it).
"""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, Max
from django.utils import timezone

from apps.accounts.models import User
from apps.study.classsets.deck_memory import deck_memory
from apps.study.classsets.models import ClassSet
from apps.study.classsets.quiz_report import QuizReport, graded, graded_percent, quiz_report
from apps.study.flashcards.models import CardReview
from apps.study.mindmaps.models import MindmapArrangement
from apps.study.sources import sources_for
from apps.study.workshops.models import LessonCompletion
from apps.vault.models import Chunk

MOST_MISSED = 10


@dataclass
class Figures:
    """One student's work on one set."""

    student: User
    started: bool = False
    finished: bool = False
    score: int | None = None  # percent: the quiz score, deck mastery, lessons completed
    detail: str = ""
    old_version: bool = False  # the quiz score is from an attempt on an older version
    last_activity: datetime | None = None
    review_days: list = field(default_factory=list)  # a deck's (day, reviews) per day


@dataclass
class Missed:
    item_id: int
    position: int
    text: str
    misses: int
    students: int
    passage: Chunk | None


@dataclass
class Results:
    class_set: ClassSet
    students: list[Figures]
    most_missed: list[Missed] = field(default_factory=list)
    quiz: QuizReport | None = None  # every attempt and the question statistics of a quiz


def figures_of(class_set: ClassSet, student: User) -> Figures:
    """A student's figures on the set (a kind with none of its own: just the student)."""
    figures = FIGURES.get(class_set.kind)
    return figures(class_set, student) if figures else Figures(student)


def quiz_figures(class_set: ClassSet, student: User) -> Figures:
    """The figure the set's policy grades: the first, best, latest or average attempt."""
    figures = Figures(student)
    attempts = list(class_set.item.attempts_of(student))
    figures.started = bool(attempts)
    if attempts:
        figures.last_activity = max(a.submitted_at or a.started_at for a in attempts)
    submitted = sorted((a for a in attempts if a.is_submitted), key=lambda a: a.submitted_at)
    chosen = graded(submitted, class_set.grading)
    if chosen:
        figures.finished = True
        figures.score = graded_percent(chosen)
        if len(chosen) == 1:
            figures.detail = f"{chosen[0].correct}/{chosen[0].total}"
        else:
            figures.detail = f"average of {len(chosen)}"
        if len(submitted) > 1:
            figures.detail += f" · {len(submitted)} attempts"
        figures.old_version = any(a.on_old_version for a in chosen)
    return figures


def deck_figures(class_set: ClassSet, student: User) -> Figures:
    """Mastery from memory over time (deck_memory.py), not from the last button pressed."""
    figures, deck = Figures(student), class_set.item
    memory = deck_memory(deck, student, timezone.now())
    reviews = CardReview.objects.filter(card__deck=deck, student=student)
    figures.last_activity = reviews.aggregate(last=Max("reviewed_at"))["last"]
    figures.started = figures.last_activity is not None
    figures.finished = memory.total > 0 and memory.remembered == memory.total
    if memory.total and figures.started:
        figures.score = round(100 * memory.remembered / memory.total)
        figures.detail = f"{memory.remembered} of {memory.total} remembered"
    figures.review_days = memory.days
    return figures


def workshop_figures(class_set: ClassSet, student: User) -> Figures:
    figures, workshop = Figures(student), class_set.item
    total = workshop.lessons.count()
    done = LessonCompletion.objects.filter(lesson__workshop=workshop, student=student)
    count = done.count()
    figures.started = count > 0
    figures.finished = total > 0 and count == total
    figures.score = round(100 * count / total) if total and count else None
    figures.detail = f"{count} of {total} lessons" if count else ""
    figures.last_activity = done.aggregate(last=Max("completed_at"))["last"]
    return figures


def mindmap_figures(class_set: ClassSet, student: User) -> Figures:
    figures = Figures(student)
    arrangement = MindmapArrangement.objects.filter(mindmap=class_set.item, student=student).first()
    if arrangement is not None:
        figures.started = True
        figures.detail = "arranged it"
        figures.last_activity = arrangement.updated_at
    return figures


FIGURES = {
    "quiz": quiz_figures,
    "deck": deck_figures,
    "workshop": workshop_figures,
    "mindmap": mindmap_figures,
}


def passage(teacher: User, chunk_ids: list) -> Chunk | None:
    """The first passage an item came from that the teacher can still open."""
    return next(iter(sources_for(teacher, [pk for pk in chunk_ids if isinstance(pk, int)])), None)


def missed_questions(class_set: ClassSet, students: list[User]) -> list[Missed]:
    quiz = class_set.item
    questions = {q.pk: q for q in quiz.questions.all()}
    current = {(pk, q.version) for pk, q in questions.items()}
    misses: dict[int, int] = defaultdict(int)
    missed_by: dict[int, set[int]] = defaultdict(set)
    submitted = quiz.attempts.filter(user__in=students, submitted_at__isnull=False)
    for attempt in submitted:
        for (pk, version), right in attempt.answered().items():
            if (pk, version) in current and not right:
                misses[pk] += 1
                missed_by[pk].add(attempt.user_id)
    ranked = sorted(
        misses, key=lambda pk: (-len(missed_by[pk]), -misses[pk], questions[pk].position)
    )
    return [
        Missed(
            item_id=pk,
            position=questions[pk].position,
            text=questions[pk].text,
            misses=misses[pk],
            students=len(missed_by[pk]),
            passage=passage(class_set.teacher, questions[pk].chunk_ids),
        )
        for pk in ranked[:MOST_MISSED]
    ]


def missed_cards(class_set: ClassSet, students: list[User]) -> list[Missed]:
    deck = class_set.item
    cards = {card.pk: card for card in deck.cards.all()}
    rows = (
        CardReview.objects.filter(
            card__deck=deck, student__in=students, outcome=CardReview.Outcome.REVIEW
        )
        .values("card_id")
        .annotate(misses=Count("id"), students=Count("student", distinct=True))
        .order_by("-students", "-misses", "card__position")[:MOST_MISSED]
    )
    return [
        Missed(
            item_id=row["card_id"],
            position=cards[row["card_id"]].position,
            text=cards[row["card_id"]].front,
            misses=row["misses"],
            students=row["students"],
            passage=passage(class_set.teacher, [cards[row["card_id"]].chunk_id]),
        )
        for row in rows
    ]


MISSED = {"quiz": missed_questions, "deck": missed_cards}


def results(class_set: ClassSet) -> Results:
    students = list(User.objects.students())
    missed = MISSED.get(class_set.kind)
    is_quiz = class_set.kind == "quiz"
    return Results(
        class_set=class_set,
        students=[figures_of(class_set, student) for student in students],
        most_missed=missed(class_set, students) if missed else [],
        quiz=quiz_report(class_set.item, class_set.grading, students) if is_quiz else None,
    )
