"""A quiz made of a question bank file from another tool (Moodle XML, GIFT or a QTI 2.1
package, told apart by content): read in the reading sandbox (bank_files.py), then stored whole
in one transaction, or nothing at all when nothing in it can be asked here (or more than a quiz
holds)."""

from pathlib import PurePath

from django.core.files.uploadedfile import UploadedFile
from django.db import transaction

from apps.study import importing
from apps.study.errors import ImportRefused
from apps.study.quizzes.bank import Bank, Skipped
from apps.study.quizzes.bank_files import FORMATS
from apps.study.quizzes.models import Difficulty, Question, Quiz
from apps.study.quota import make_room, size_of

READER = "apps.study.quizzes.bank_files:read_bank"


def nothing_usable(fmt: str, skipped: list[Skipped]) -> ImportRefused:
    if not skipped:
        return ImportRefused(
            f"No questions found in this {FORMATS[fmt]} file: import Moodle XML, GIFT or a "
            "QTI 2.1 package."
        )
    kinds = sorted({s.type for s in skipped})
    return ImportRefused(
        f"None of the {len(skipped)} questions of this {FORMATS[fmt]} file can be asked here "
        f"({', '.join(kinds)}): only multiple choice with one right answer and true or false "
        "are kept."
    )


def import_quiz(owner, upload: UploadedFile) -> tuple[Quiz, list[Skipped]]:
    """The owner's new quiz of the file's questions, and those left out, with why."""
    read = importing.read_upload(upload, READER)
    bank = Bank.from_dict(read["bank"])
    items, skipped = bank.items, bank.skipped
    if not items:
        raise nothing_usable(read["format"], skipped)
    if len(items) > Quiz.MOST_QUESTIONS:
        raise ImportRefused(
            f"A quiz holds at most {Quiz.MOST_QUESTIONS} questions; this file has {len(items)} "
            "that can be asked here. Split the bank and import each part."
        )
    title = bank.title or PurePath(upload.name or "").stem or "Imported quiz"
    size = sum(size_of(i.text, i.options, i.explanation, i.pictures) for i in items)
    with transaction.atomic():
        make_room(owner, size, title[:200])
        quiz = Quiz.objects.create(
            owner=owner,
            title=title[:200],
            difficulty=Difficulty.INTERMEDIATE,
            types=sorted({item.kind for item in items}),
            requested=len(items),
            asked={"imported": read["format"], "file": (upload.name or "")[:200]},
        )
        Question.objects.bulk_create(
            Question(
                quiz=quiz,
                position=position,
                kind=item.kind,
                text=item.text,
                options=item.options,
                correct_index=item.correct_index,
                explanation=item.explanation,
                pictures=item.pictures,
            )
            for position, item in enumerate(items)
        )
    return quiz, sorted(skipped, key=lambda s: s.index)
