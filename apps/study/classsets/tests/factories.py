"""A teacher's study items made straight in the database (no generation), citing passages of
a class document, to hand out in tests."""

from django.utils import timezone

from apps.accounts.models import User
from apps.classes.models import Enrolment, SchoolClass
from apps.study.flashcards.decks import create_deck
from apps.study.models import Lesson, Mindmap, Question, Quiz, Workshop
from apps.study.tests.helpers import add_chunks
from apps.vault.models import Document
from tests.helpers.documents import make_document
from tests.helpers.users import make_user

JSON = "application/json"
TREE = {"title": "Zelle", "children": [{"title": "Kern"}, {"title": "Mitochondrium"}]}


def classmate(username: str) -> User:
    """A student of tess's class (the conftest makes it), besides alice and bob."""
    student = make_user(username)
    SchoolClass.objects.get(owner__username="tess").enrol([student], Enrolment.Role.STUDENT)
    return student


def class_passages(teacher, count: int = 3):
    document = make_document(teacher, "biologie.txt", status="done", scope=Document.Scope.CLASS)
    return add_chunks(
        document,
        [f"Passage {i}: Mitochondrien sind die Kraftwerke der Zelle." for i in range(count)],
    )


def make_quiz(owner, chunks=()) -> Quiz:
    """Three questions; the right answers are 1, 0 and 1."""
    quiz = Quiz.objects.create(
        owner=owner, title="Zellbiologie", difficulty="beginner", types=["mcq"], requested=3
    )
    texts = ["Was ist das Kraftwerk der Zelle?", "Haben Pflanzen Zellwände?", "Wo liegt die DNA?"]
    options = [
        ["Kern", "Mitochondrium", "Ribosom", "Vakuole"],
        ["Ja", "Nein"],
        ["Ribosom", "Kern", "Membran", "Vakuole"],
    ]
    for position, (text, choices) in enumerate(zip(texts, options, strict=True)):
        Question.objects.create(
            quiz=quiz,
            position=position,
            kind="mcq" if len(choices) == 4 else "true_false",
            text=text,
            options=choices,
            correct_index=0 if position == 1 else 1,
            chunk_ids=[chunks[position].pk] if chunks else [],
        )
    return quiz


def make_deck(owner, chunks=()):
    items = [
        {
            "front": "Mitochondrium",
            "back": "Kraftwerk",
            "chunk_id": chunks[0].pk if chunks else None,
        },
        {"front": "Ribosom", "back": "Proteinfabrik"},
    ]
    deck, _ = create_deck(owner, "Organellen", items, now=timezone.now())
    return deck


def make_workshop(owner, lessons: int = 2) -> Workshop:
    workshop = Workshop.objects.create(owner=owner, title="Die Zelle", requested=lessons)
    for number in range(1, lessons + 1):
        Lesson.objects.create(
            workshop=workshop,
            number=number,
            title=f"Lektion {number}",
            content=f"Inhalt {number}",
            status=Lesson.Status.READY,
        )
    return workshop


def make_mindmap(owner) -> Mindmap:
    mindmap, _ = Mindmap.objects.create_from(owner, TREE)
    return mindmap


def in_shown_order(client, quiz, answers: list) -> list:
    """`answers` (one per question in the quiz's own order, each an option index of it) as the
    student logged in on `client` sends them: in their shuffled order of questions and options."""
    own = {q.text: (q, a) for q, a in zip(quiz.questions.all(), answers, strict=True)}
    response = client.get(f"/api/v1/study/quizzes/{quiz.pk}")
    if response.status_code != 200:  # not theirs to read: send them as they are
        return list(answers)
    shown = response.json()["questions"]
    sent = []
    for row in shown:
        question, chosen = own[row["question"]]
        sent.append(None if chosen is None else row["options"].index(question.options[chosen]))
    return sent


def shown_place(client, quiz, position: int, choice: int) -> dict:
    """The page's form fields that answer question `position` with option `choice` (both in
    the quiz's own order) for the student logged in on `client`."""
    question = quiz.questions.get(position=position)
    shown = client.get(f"/api/v1/study/quizzes/{quiz.pk}").json()["questions"]
    [place] = [i for i, row in enumerate(shown) if row["question"] == question.text]
    return {"position": place, "choice": shown[place]["options"].index(question.options[choice])}


def hand_out(client, kind: str, item_id: int, **fields):
    """Hands an item out through the API, as the teacher logged in on `client`."""
    body = {"kind": kind, "item_id": item_id, **fields}
    return client.post("/api/v1/study/class-sets", body, content_type=JSON)


def answer(client, quiz, answers: list):
    """Submits `answers` (one per question in the quiz's own order) through the API, as the
    student logged in on `client` sends them: in their own order of questions and options."""
    sent = in_shown_order(client, quiz, list(answers))
    url = f"/api/v1/study/quizzes/{quiz.pk}/attempts"
    return client.post(url, {"answers": sent}, content_type=JSON)
