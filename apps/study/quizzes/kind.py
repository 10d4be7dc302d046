"""The quiz, as a kind of study material a worker makes and a teacher hands out to the class
(apps/study/kinds.py). A student's figure is the one the set's policy grades (their first, best,
latest or average attempt; the report per attempt and per question is quiz_report.py); a
question counts as missed in an attempt that answered its current version wrong (an attempt on
an older version of a changed question does not count against the new one)."""

from collections import defaultdict

from apps.study import generator, kinds
from apps.study.quizzes.generation import fill_quiz
from apps.study.quizzes.models import Quiz
from apps.study.quizzes.quiz_report import graded, graded_percent, quiz_report
from apps.study.quizzes.stale import cited, refresh_quiz
from apps.study.sources import first_source


def shortfall(quiz: Quiz) -> kinds.Shortfall:
    questions = quiz.questions
    return kinds.Shortfall(
        questions.count(),
        quiz.requested,
        "questions",
        filled=questions.filter(extractive=True).count(),
        model=quiz.backend != generator.EXTRACTIVE,
    )


def figures(class_set, student) -> kinds.Figures:
    """The figure the set's policy grades: the first, best, latest or average attempt."""
    quiz = class_set.item
    figures = kinds.Figures(student)
    attempts = list(quiz.attempts_of(student))
    figures.started = bool(attempts)
    if attempts:
        figures.last_activity = max(a.submitted_at or a.started_at for a in attempts)
    submitted = sorted((a for a in attempts if a.is_submitted), key=lambda a: a.submitted_at)
    chosen = graded(submitted, class_set.grading)
    if chosen:
        figures.finished = True
        figures.score = graded_percent(chosen)
        figures.fraction = sum(a.correct / a.total if a.total else 0 for a in chosen) / len(chosen)
        if len(chosen) == 1:
            figures.detail = f"{chosen[0].correct}/{chosen[0].total}"
        else:
            figures.detail = f"average of {len(chosen)}"
        if len(submitted) > 1:
            figures.detail += f" · {len(submitted)} attempts"
        figures.old_version = any(a.on_old_version for a in chosen)
    return figures


def own_figures(class_set, student) -> kinds.Figures:
    """A student's own figures: the score only once their marks show (and then the attempts
    they handed in while the marks were hidden go into their progress)."""
    quiz = class_set.item
    seat = quiz.seat_for(student, class_set)
    quiz.record_marks(seat)
    mine = figures(class_set, student)
    if not seat.marks_shown:
        mine.score, mine.detail, mine.old_version = None, "", False
    return mine


def missed_questions(class_set, students: list) -> list[kinds.Missed]:
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
        kinds.Missed(
            item_id=pk,
            position=questions[pk].position,
            text=questions[pk].text,
            misses=misses[pk],
            students=len(missed_by[pk]),
            passage=first_source(class_set.teacher, questions[pk].chunk_ids),
        )
        for pk in ranked[: kinds.MOST_MISSED]
    ]


QUIZ = kinds.register(
    kinds.Kind(
        "quiz",
        Quiz,
        fill=fill_quiz,
        making=lambda quiz: f"Making a quiz of {quiz.requested} questions",
        detail_url="study:quiz-detail",
        urls=("quizzes/", "apps.study.quizzes.urls"),
        router="apps.study.quizzes.api.router",
        tab=kinds.Tab("Quiz", "study:quiz-list", 1),
        refresh=refresh_quiz,
        refreshed_url="study:quiz-list",
        shortfall=shortfall,
        parts="questions",
        part="question",
        cited=cited,
        handed_out=kinds.HandOut(
            "Score",
            figures,
            own=own_figures,
            missed=missed_questions,
            report=quiz_report,
            template="study/quizzes/class_results.html",
            out_of=lambda quiz: quiz.questions.count(),
        ),
    )
)
