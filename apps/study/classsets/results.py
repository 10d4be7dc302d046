"""What the class did with a set: each student's own figures and what the class misses most.

Only for the teacher who handed the set out; a student sees their own row (`figures_of`).
Quiz figures come from each student's latest submitted attempt; a question counts as missed
in an attempt that answered its current version wrong (an attempt on an older version of a
changed question does not count against the new one). Deck figures are mastery (cards whose
last answer was "got it") and the cards answered "review" most; workshop figures are lessons
completed; a mindmap has only "started" (the student arranged it).
"""

import csv
import io
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, Max
from django.utils.text import slugify

from apps.accounts.models import User
from apps.study.classsets.models import ClassSet
from apps.study.flashcards.csv_files import protect_cell
from apps.study.flashcards.models import CardReview, CardSchedule
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


def figures_of(class_set: ClassSet, student: User) -> Figures:
    return FIGURES[class_set.kind](class_set.item, student)


def quiz_figures(quiz, student: User) -> Figures:
    figures = Figures(student)
    attempts = list(quiz.attempts_of(student).order_by("-started_at", "-pk"))
    figures.started = bool(attempts)
    submitted = sorted(
        (a for a in attempts if a.is_submitted), key=lambda a: a.submitted_at, reverse=True
    )
    if attempts:
        figures.last_activity = max(a.submitted_at or a.started_at for a in attempts)
    if submitted:
        latest = submitted[0]
        figures.finished = True
        figures.score = latest.percent
        figures.detail = f"{latest.correct}/{latest.total}"
        figures.old_version = latest.on_old_version
    return figures


def deck_figures(deck, student: User) -> Figures:
    figures = Figures(student)
    total = deck.cards.count()
    mastered = CardSchedule.objects.filter(card__deck=deck, student=student, mastered=True).count()
    reviews = CardReview.objects.filter(card__deck=deck, student=student)
    figures.last_activity = reviews.aggregate(last=Max("reviewed_at"))["last"]
    figures.started = figures.last_activity is not None
    figures.finished = total > 0 and mastered == total
    figures.score = round(100 * mastered / total) if total and figures.started else None
    figures.detail = f"{mastered} of {total} mastered" if figures.started else ""
    return figures


def workshop_figures(workshop, student: User) -> Figures:
    figures = Figures(student)
    total = workshop.lessons.count()
    done = LessonCompletion.objects.filter(lesson__workshop=workshop, student=student)
    count = done.count()
    figures.started = count > 0
    figures.finished = total > 0 and count == total
    figures.score = round(100 * count / total) if total and count else None
    figures.detail = f"{count} of {total} lessons" if count else ""
    figures.last_activity = done.aggregate(last=Max("completed_at"))["last"]
    return figures


def mindmap_figures(mindmap, student: User) -> Figures:
    figures = Figures(student)
    arrangement = MindmapArrangement.objects.filter(mindmap=mindmap, student=student).first()
    if arrangement is not None:
        figures.started = True
        figures.detail = "arranged it"
        figures.last_activity = arrangement.updated_at
    return figures


FIGURES = {
    ClassSet.Kind.QUIZ: quiz_figures,
    ClassSet.Kind.DECK: deck_figures,
    ClassSet.Kind.WORKSHOP: workshop_figures,
    ClassSet.Kind.MINDMAP: mindmap_figures,
}


def passage(teacher: User, chunk_ids: list) -> Chunk | None:
    """The first passage an item came from that the teacher can still open."""
    return next(iter(sources_for(teacher, [pk for pk in chunk_ids if isinstance(pk, int)])), None)


def missed_questions(class_set: ClassSet, students: list[User]) -> list[Missed]:
    quiz = class_set.quiz
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
    deck = class_set.deck
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


MISSED = {ClassSet.Kind.QUIZ: missed_questions, ClassSet.Kind.DECK: missed_cards}


def results(class_set: ClassSet) -> Results:
    students = list(User.objects.students())
    missed = MISSED.get(class_set.kind)
    return Results(
        class_set=class_set,
        students=[figures_of(class_set, student) for student in students],
        most_missed=missed(class_set, students) if missed else [],
    )


CSV_COLUMNS = [
    "username",
    "name",
    "started",
    "finished",
    "score_percent",
    "detail",
    "old_version",
    "last_activity",
]


def as_csv(report: Results) -> str:
    """One row per student; a cell that a spreadsheet would run as a formula gets a leading
    apostrophe (names are typed by people)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in report.students:
        cells = [
            row.student.username,
            row.student.get_full_name(),
            "yes" if row.started else "no",
            "yes" if row.finished else "no",
            "" if row.score is None else str(row.score),
            row.detail,
            "yes" if row.old_version else "no",
            row.last_activity.isoformat() if row.last_activity else "",
        ]
        writer.writerow([protect_cell(cell) for cell in cells])
    return out.getvalue()


def csv_name(class_set: ClassSet) -> str:
    title = slugify(class_set.item.title)[:60] or class_set.kind
    return f"class-results-{class_set.kind}-{class_set.pk}-{title}.csv"
