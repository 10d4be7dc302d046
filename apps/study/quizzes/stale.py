"""A quiz's questions whose source changed, and refreshing only those (apps/study/stale.py)."""

import random

from apps.study import retrieval
from apps.study.extractive import material
from apps.study.extractive import quizzes as extractive_quizzes
from apps.study.quizzes.generation import QuestionItem, place_answers
from apps.study.quizzes.models import Question, Quiz
from apps.study.stale import candidates, cites_retired, live, scope_for


def stale_questions(quiz: Quiz) -> list[Question]:
    questions = list(quiz.questions.all())
    alive = live(pk for q in questions for pk in q.chunk_ids)
    return [q for q in questions if cites_retired(q.chunk_ids, alive)]


def question_text(question: Question) -> str:
    return question.explanation or question.text


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
                question.text = made["question"]
                question.options, question.correct_index = _placed(quiz, question, made)
                question.explanation, question.kind = made["explanation"], made["type"]
                question.chunk_ids, question.extractive = made["chunk_ids"], True
                question.version += 1  # a new question: attempts before answered the old one
            question.save()
            refreshed += 1
            break
    return refreshed


def _question_from(quiz: Quiz, question: Question, passage: retrieval.Source) -> dict | None:
    vocabulary = material.vocabulary(quiz.owner, scope_for(quiz), [passage])
    taken = {other.text for other in quiz.questions.exclude(pk=question.pk)}
    for kinds in ([question.kind], list(quiz.types)):
        for made in extractive_quizzes.questions(
            [passage], vocabulary, count=5, types=kinds, difficulty=quiz.difficulty
        ):
            if made["question"] not in taken:
                return made
    return None


def _placed(quiz: Quiz, question: Question, made: dict) -> tuple[list[str], int]:
    """The new question's options as a quiz's are stored (generation.place_answers)."""
    others = [q.correct_index for q in quiz.questions.exclude(pk=question.pk)]
    rng = random.Random(f"{quiz.pk}:{question.position}:{question.version}")
    [placed] = place_answers([QuestionItem.model_validate(made)], rng, others)
    return placed


def cited(user) -> list[list[int]]:
    """The chunks each of the user's questions cites, for the stale counts."""
    cited = Question.objects.filter(quiz__owner=user).values_list("chunk_ids", flat=True)
    return [ids for ids in cited if ids]
