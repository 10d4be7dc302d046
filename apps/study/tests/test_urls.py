"""Every Study Hub page keeps its public path; names follow one pattern, <thing>-<action>."""

import pytest
from django.urls import reverse

PATHS = [
    ("index", [], "/study/"),
    ("source-detail", [7], "/study/sources/7/"),
    ("generation-status", ["quiz", 1], "/study/generations/quiz/1/"),
    ("generation-retry", ["deck", 1], "/study/generations/deck/1/retry/"),
    ("quiz-list", [], "/study/quizzes/"),
    ("quiz-detail", [1], "/study/quizzes/1/"),
    ("quiz-answer", [1], "/study/quizzes/1/answer/"),
    ("quiz-submit", [1], "/study/quizzes/1/submit/"),
    ("quiz-retake", [1], "/study/quizzes/1/retake/"),
    ("attempt-detail", [1, 2], "/study/quizzes/1/attempts/2/"),
    ("quiz-export", [1, "pdf"], "/study/quizzes/1/export.pdf"),
    ("quiz-edit", [1], "/study/quizzes/1/edit/"),
    ("question-update", [1, 2], "/study/quizzes/1/questions/2/"),
    ("question-delete", [1, 2], "/study/quizzes/1/questions/2/delete/"),
    ("workshop-list", [], "/study/workshops/"),
    ("workshop-detail", [1], "/study/workshops/1/"),
    ("lesson-detail", [1, 2], "/study/workshops/1/lessons/2/"),
    ("lesson-write", [1, 2], "/study/workshops/1/lessons/2/write/"),
    ("lesson-complete", [1, 2], "/study/workshops/1/lessons/2/complete/"),
    ("workshop-recap", [1], "/study/workshops/1/recap/"),
    ("workshop-export", [1, "md"], "/study/workshops/1/export.md"),
    ("deck-list", [], "/study/decks/"),
    ("deck-generate", [], "/study/decks/generate/"),
    ("deck-create", [], "/study/decks/new/"),
    ("deck-import", [], "/study/decks/import/"),
    ("deck-due", [], "/study/decks/due/"),
    ("deck-detail", [1], "/study/decks/1/"),
    ("deck-update", [1], "/study/decks/1/rename/"),
    ("deck-delete", [1], "/study/decks/1/delete/"),
    ("deck-study", [1], "/study/decks/1/study/"),
    ("deck-export", [1, "apkg"], "/study/decks/1/export.apkg"),
    ("card-create", [1], "/study/decks/1/cards/"),
    ("card-update", [1, 2], "/study/decks/1/cards/2/"),
    ("card-delete", [1, 2], "/study/decks/1/cards/2/delete/"),
    ("card-flip", [1, 2], "/study/decks/1/cards/2/flip/"),
    ("card-review", [1, 2], "/study/decks/1/cards/2/review/"),
    ("mindmap-list", [], "/study/mindmaps/"),
    ("mindmap-generate", [], "/study/mindmaps/generate/"),
    ("mindmap-create", [], "/study/mindmaps/new/"),
    ("mindmap-detail", [1], "/study/mindmaps/1/"),
    ("mindmap-layout", [1], "/study/mindmaps/1/layout/"),
    ("mindmap-reset", [1], "/study/mindmaps/1/reset/"),
    ("mindmap-toggle", [1], "/study/mindmaps/1/toggle/"),
    ("mindmap-move", [1], "/study/mindmaps/1/move/"),
    ("mindmap-update", [1], "/study/mindmaps/1/rename/"),
    ("mindmap-delete", [1], "/study/mindmaps/1/delete/"),
    ("mindmap-export", [1, "png"], "/study/mindmaps/1/export.png"),
    ("class-set-list", [], "/study/class-sets/"),
    ("class-set-create", [], "/study/class-sets/hand-out/"),
    ("class-set-detail", [1], "/study/class-sets/1/"),
    ("class-set-delete", [1], "/study/class-sets/1/take-back/"),
    ("class-set-export", [1, "csv"], "/study/class-sets/1/results.csv"),
]


@pytest.mark.parametrize(("name", "args", "path"), PATHS, ids=[name for name, _, _ in PATHS])
def test_each_page_keeps_its_path(name, args, path):
    assert reverse(f"study:{name}", args=args) == path
