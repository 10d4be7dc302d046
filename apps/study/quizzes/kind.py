"""The quiz, as a kind of study material a worker makes (apps/study/kinds.py)."""

from apps.study import generator, kinds
from apps.study.quizzes.generation import fill_quiz
from apps.study.quizzes.models import Quiz
from apps.study.quizzes.stale import cited, refresh_quiz


def shortfall(quiz: Quiz) -> kinds.Shortfall:
    questions = quiz.questions
    return kinds.Shortfall(
        questions.count(),
        quiz.requested,
        "questions",
        filled=questions.filter(extractive=True).count(),
        model=quiz.backend != generator.EXTRACTIVE,
    )


QUIZ = kinds.register(
    kinds.Kind(
        "quiz",
        Quiz,
        fill=fill_quiz,
        making=lambda quiz: f"Making a quiz of {quiz.requested} questions",
        detail_url="study:quiz-detail",
        refresh=refresh_quiz,
        refreshed_url="study:quiz-list",
        shortfall=shortfall,
        parts="questions",
        cited=cited,
        handed_out=True,
    )
)
