"""A school for the tests that walk every route as each person: teachers, each with a class
whose student (made with a login card, in a batch) studied what the teacher handed out to it,
and has a chat, a recorded question, a document and an API token of their own; a co-teacher
and the admin."""

from dataclasses import dataclass

from apps.accounts.models import ApiToken, StudentBatch, User
from apps.chat.models import Attachment, Message, Thread, Transcription
from apps.classes import rosters
from apps.classes.models import SchoolClass
from apps.study.classsets.tests.factories import (
    answer,
    make_deck,
    make_mindmap,
    make_quiz,
    make_workshop,
)
from apps.study.models import Attempt, ClassSet
from apps.study.tests.helpers import add_chunks
from apps.vault.models import Chunk, Document, IngestRun
from tests.helpers.classes import make_class
from tests.helpers.documents import make_document
from tests.helpers.users import client_for, make_user

JSON = "application/json"


@dataclass
class Side:
    """One teacher's part of the school."""

    teacher: User
    school_class: SchoolClass
    student: User
    batch: StudentBatch
    items: dict[str, object]  # a kind's name -> the teacher's item handed out to the class
    sets: dict[str, ClassSet]
    attempt: Attempt  # the student's, on the class's quiz
    token: ApiToken  # the student's
    thread: Thread  # the student's, with a question and a file attached to it
    attachment: Attachment
    transcription: Transcription  # the student's, of a question they recorded
    document: Document  # the student's own
    run: IngestRun  # the student's

    def ids(self) -> dict[str, object]:
        """What each kind of route parameter takes on this side (tests/helpers/routes.py)."""
        chunk = Chunk.objects.filter(document=self.document).first()
        return {
            "class": self.school_class.pk,
            "student": self.student.pk,
            "teacher": self.teacher.pk,
            "batch": self.batch.pk,
            "class_set": self.sets["quiz"].pk,
            "card": self.items["deck"].cards.first().pk,
            "attempt": self.attempt.pk,
            "student_token": self.token.pk,
            "token": self.token.pk,
            "thread": self.thread.pk,
            "attachment": self.attachment.pk,
            "transcription": self.transcription.pk,
            "document": self.document.pk,
            "chunk": chunk.pk,
            "run": self.run.pk,
            **{kind: item.pk for kind, item in self.items.items()},
            "lesson": self.items["workshop"].lessons.first().pk,
        }


def admin() -> User:
    ada = make_user("ada", teacher=True)
    ada.is_superuser = True
    ada.save(update_fields=["is_superuser"])
    return ada


def co_teacher(name: str, side: Side) -> User:
    teacher = make_user(name, teacher=True)
    rosters.add_teacher(side.school_class, name)
    return teacher


def side(teacher_name: str, class_name: str, student_name: str) -> Side:
    """A teacher, their class with one student, a quiz, deck, mindmap and workshop handed out to
    it; the student answered the quiz (one wrong, one blank), reviewed a card and completed a
    lesson, and has a chat, a document, an ingestion run and an API token of their own. The
    batch the account was made in did not finish (a worker that died), so it can be retried."""
    teacher = make_user(teacher_name, teacher=True)
    school_class = make_class(teacher, name=class_name)
    batch, [(student, _)] = rosters.create_students(school_class, [student_name], by=teacher)
    student.refresh_from_db()  # with the password the batch stored since
    StudentBatch.objects.filter(pk=batch.pk).update(status=StudentBatch.Status.FAILED)
    material = make_document(
        teacher, f"{teacher_name}-biologie.txt", status="done", scope=Document.Scope.CLASS
    )
    chunks = add_chunks(material, [f"Passage {i}: Mitochondrien." for i in range(3)])
    items = {
        "quiz": make_quiz(teacher, chunks),
        "deck": make_deck(teacher, chunks),
        "mindmap": make_mindmap(teacher),
        "workshop": make_workshop(teacher),
    }
    sets = {
        kind: ClassSet.objects.hand_out(teacher, item, school_class) for kind, item in items.items()
    }
    studies = client_for(student)
    assert answer(studies, items["quiz"], [0, None, 1]).status_code == 201
    deck, card = items["deck"], items["deck"].cards.first()
    review = f"/api/v1/study/decks/{deck.pk}/cards/{card.pk}/review"
    assert studies.post(review, {"outcome": "review"}, content_type=JSON).status_code == 200
    lesson = f"/api/v1/study/workshops/{items['workshop'].pk}/lessons/1/complete"
    assert studies.post(lesson).status_code == 200
    thread = Thread.objects.create(owner=student, title="Homework", titled=True)
    question = Message.objects.create(
        thread=thread, role=Message.Role.USER, content="What is a cell?"
    )
    document = make_document(student, "homework.txt", status="done")
    add_chunks(document, ["A cell is the smallest unit of life."])
    return Side(
        teacher=teacher,
        school_class=school_class,
        student=student,
        batch=batch,
        items=items,
        sets=sets,
        attempt=Attempt.objects.get(user=student),
        token=ApiToken.objects.issue(student, "laptop")[0],
        thread=thread,
        attachment=attach(question, "worksheet.pdf", "A cell has a membrane."),
        transcription=Transcription.objects.create(
            owner=student,
            stored_name=f"{student.pk}-question.audio",
            size_bytes=1,
            status=Transcription.Status.READY,
            text="Is a virus a cell?",
        ),
        document=document,
        run=IngestRun.objects.create(owner=student, status=IngestRun.Status.DONE),
    )


def attach(message: Message, filename: str, text: str) -> Attachment:
    """A file its owner attached to a chat question, read already."""
    return Attachment.objects.create(
        owner=message.thread.owner,
        message=message,
        filename=filename,
        kind=Attachment.Kind.PDF,
        stored_name=f"{message.pk}-{filename}",
        size_bytes=len(text),
        text=text,
        status=Attachment.Status.READY,
    )
