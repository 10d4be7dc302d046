"""Every Study Hub model, imported here so Django finds them under the `study` app label.

Each feature keeps its own models in its package (quizzes, workshops, flashcards, mindmaps).
Generated content is stored as it arrived (after validation), with the ids of the chunks it
was built from, so everything can be resumed, reviewed and traced to its source later.
"""

from apps.study.classsets.models import ClassSet
from apps.study.flashcards.models import Card, CardReview, CardSchedule, Deck
from apps.study.mindmaps.models import Mindmap, MindmapArrangement
from apps.study.quizzes.models import Attempt, Difficulty, Question, Quiz
from apps.study.workshops.models import Lesson, LessonCompletion, Workshop

__all__ = [
    "Attempt",
    "Card",
    "CardReview",
    "CardSchedule",
    "ClassSet",
    "Deck",
    "Difficulty",
    "Lesson",
    "LessonCompletion",
    "Mindmap",
    "MindmapArrangement",
    "Question",
    "Quiz",
    "Workshop",
]
