"""A realistic classroom vault written straight into the database, for the page benchmark
(bench/bench_pages.py) and the query-count tests: documents with chunks, chats with cited
answers, decks, quizzes, workshops, mindmaps and 90 days of study, for a teacher and a few
students. `scale` 1 is the benchmark's size (1,000 documents, 50 chats, 20 decks)."""

import json
from dataclasses import dataclass
from datetime import datetime, timedelta

from apps.accounts.models import User
from apps.chat.models import Message, Thread
from apps.classes.models import Enrolment, SchoolClass
from apps.progress.models import Event, StudySession
from apps.study.flashcards.models import Card, CardReview, Deck
from apps.study.mindmaps.models import Mindmap
from apps.study.quizzes.models import Attempt, Question, Quiz
from apps.study.workshops.models import Lesson, Workshop
from apps.vault.ingest_steps import STEPS
from apps.vault.models import Category, Chunk, Document, IngestRun, IngestStep, Rendering
from apps.vault.reading.links import source_url
from tests.helpers.classes import make_class

SENTENCES = [
    "Mitochondrien sind die Kraftwerke der Zelle und erzeugen ATP.",
    "BM25 scores passages by term frequency and inverse document frequency.",
    "Chloroplasten enthalten Chlorophyll, das rotes und blaues Licht absorbiert.",
    "Reciprocal Rank Fusion merges the dense and the keyword ranking with k = 60.",
    "Die Vakuole speichert Wasser und gibt der Pflanzenzelle Festigkeit.",
]


def paragraph(n: int, words: int = 160) -> str:
    text = " ".join(SENTENCES[(n + i) % len(SENTENCES)] for i in range(words // 10))
    return f"Passage {n}. {text}"


@dataclass
class Vault:
    teacher: User
    students: list[User]
    categories: list[Category]
    school_class: SchoolClass
    documents: int = 0
    chats: int = 0
    decks: int = 0
    days: int = 0

    @property
    def student(self) -> User:
        """The one whose pages are measured: most of the vault is hers."""
        return self.students[0]


def seed(
    now: datetime, *, documents: int = 1000, chats: int = 50, decks: int = 20, days: int = 90
) -> Vault:
    """A teacher, her class of three students and ten categories, then `add` the rest (and a
    fourth student)."""
    teacher = User.objects.create_user("tess", password="x" * 12, is_staff=True)
    students = [User.objects.create_user(f"student{n}", password="x" * 12) for n in range(3)]
    categories = Category.objects.bulk_create(Category(name=f"Fach {n}") for n in range(10))
    vault = Vault(teacher, students, categories, make_class(teacher, students))
    add(vault, now, documents=documents, chats=chats, decks=decks, days=days)
    draw_first_page(vault)
    return vault


def draw_first_page(vault: Vault) -> None:
    """The student's first passage's page as the reader's worker leaves it: its words, 12 to a
    line (its image is not read by the page, only linked)."""
    chunk = first_chunk(vault.student)
    words = [
        [50 + 40 * (i % 12), 50 + 14 * (i // 12), 85 + 40 * (i % 12), 62 + 14 * (i // 12), word, 0,
         i // 12]
        for i, word in enumerate(chunk.text.split())
    ]  # fmt: skip
    rendering = Rendering.objects.create(
        document=chunk.document, sha256=chunk.document.sha256, page=chunk.page,
        status=Rendering.Status.READY,
    )  # fmt: skip
    rendering.data_path.parent.mkdir(parents=True, exist_ok=True)
    rendering.data_path.write_text(
        json.dumps({"width": 595, "height": 842, "ocr": False, "words": words})
    )


def first_chunk(student: User) -> Chunk:
    return (
        Chunk.objects.filter(document__owner=student).select_related("document").order_by("pk")[0]
    )


def add(vault: Vault, now: datetime, *, documents: int, chats: int, decks: int, days: int) -> None:
    """More of everything: one more student; half the documents the class's (the teacher's),
    half the first student's own, five chunks each; her chats, decks, quizzes, workshops and
    mindmaps; `days` of study for every student (going further back each time)."""
    username = f"student{len(vault.students)}"
    vault.students.append(User.objects.create_user(username, password="x" * 12))
    vault.school_class.enrol(vault.students[-1:], Enrolment.Role.STUDENT)
    teacher, student = vault.teacher, vault.student
    owners = [teacher, student]
    first = vault.documents
    docs = Document.objects.bulk_create(
        Document(
            owner=owners[n % 2],
            scope=Document.Scope.CLASS if n % 2 == 0 else Document.Scope.PERSONAL,
            category=vault.categories[n % len(vault.categories)],
            filename=f"skript-{n:04d}.pdf",
            format="pdf",
            stored_name=f"{n:032x}.pdf",
            sha256=f"{n:064x}",
            chunked_sha256=f"{n:064x}",
            indexed_sha256=f"{n:064x}",
            status=Document.Status.DONE,
            pages=12,
            chunk_count=5,
            ingested_at=now - timedelta(days=n % 90),
        )
        for n in range(first, first + documents)
    )
    chunks = Chunk.objects.bulk_create(
        Chunk(
            document=doc,
            document_sha256=doc.sha256,
            ordinal=i,
            text=paragraph(doc.pk + i),
            page=i + 1,
            section=f"Kapitel {i + 1}",
        )
        for doc in docs
        for i in range(5)
    )
    for owner in owners:
        for n in range(max(documents // 200, 1)):
            run = IngestRun.objects.create(
                owner=owner, status=IngestRun.Status.DONE, started_at=now, finished_at=now
            )
            IngestStep.objects.bulk_create(
                IngestStep(run=run, position=p, name=name, status=IngestStep.Status.DONE)
                for p, name in enumerate(STEPS)
            )
            run.documents.set(docs[n * 10 : n * 10 + 10])

    mine = [chunk for chunk in chunks if chunk.document.owner_id == student.pk]
    seed_chats(student, mine, chats, now)
    seed_decks(student, mine, decks, now)
    seed_quizzes_and_workshops(student, mine, max(decks // 2, 1), now)
    seed_progress(vault.students, now - timedelta(days=vault.days), days)
    for other in vault.students[1:]:
        seed_chats(other, mine[:5], 2, now)
    vault.documents += documents
    vault.chats += chats
    vault.decks += decks
    vault.days += days


def citation(number: int, chunk: Chunk) -> dict:
    return {
        "number": number,
        "chunk_id": chunk.pk,
        "document_id": chunk.document_id,
        "filename": chunk.document.filename,
        "page": chunk.page,
        "section": chunk.section,
        "text": chunk.text,
        "score": 0.03,
    }


def seed_chats(user: User, chunks: list[Chunk], count: int, now: datetime) -> None:
    threads = Thread.objects.bulk_create(
        Thread(owner=user, title=f"Frage {n}", titled=True) for n in range(count)
    )
    Message.objects.bulk_create(
        message
        for n, thread in enumerate(threads)
        for turn in range(6)
        for message in (
            Message(thread=thread, role=Message.Role.USER, content=f"Was ist {turn}?"),
            Message(
                thread=thread,
                role=Message.Role.ASSISTANT,
                content=f"Die Antwort [1] und [2]. {paragraph(turn, 60)}",
                citations=[
                    citation(1, chunks[(n + turn) % len(chunks)]),
                    citation(2, chunks[(n + turn + 1) % len(chunks)]),
                ],
                backend="ollama",
                model="gemma4:e4b",
            ),
        )
    )


def seed_decks(user: User, chunks: list[Chunk], count: int, now: datetime) -> None:
    decks = Deck.objects.bulk_create(
        Deck(owner=user, title=f"Deck {n}", model_label="extractive") for n in range(count)
    )
    cards = Card.objects.bulk_create(
        Card(
            deck=deck,
            position=i,
            front=f"Begriff {i}",
            back=SENTENCES[i % len(SENTENCES)],
            chunk=chunks[i % len(chunks)],
            source_chunk_id=chunks[i % len(chunks)].pk,
            due_at=now + timedelta(hours=i - 15),
            state=Card.State.REVIEW if i % 3 else Card.State.LEARNING,
            mastered=i % 2 == 0,
            last_review_at=now - timedelta(days=1),
        )
        for deck in decks
        for i in range(30)
    )
    CardReview.objects.bulk_create(
        CardReview(
            card=card,
            outcome=CardReview.Outcome.GOT_IT,
            reviewed_at=now - timedelta(days=1),
            state_after=card.state,
            due_after=card.due_at,
        )
        for card in cards
    )


def seed_quizzes_and_workshops(user: User, chunks: list[Chunk], count: int, now: datetime) -> None:
    for n in range(count):
        quiz = Quiz.objects.create(
            owner=user, title=f"Quiz {n}", difficulty="intermediate", types=["mcq"], requested=10
        )
        Question.objects.bulk_create(
            Question(
                quiz=quiz,
                position=i,
                kind=Question.Kind.MCQ,
                text=f"Welche Organelle {i}?",
                options=["Zellkern", "Mitochondrium", "Ribosom", "Golgi"],
                correct_index=1,
                explanation=SENTENCES[0],
                chunk_ids=[chunks[(n + i) % len(chunks)].pk],
            )
            for i in range(10)
        )
        Attempt.objects.create(
            quiz=quiz, user=user, answers=[1] * 10, correct=10, total=10, submitted_at=now
        )
        workshop = Workshop.objects.create(
            owner=user, title=f"Workshop {n}", requested=5, summary="Zellen"
        )
        Lesson.objects.bulk_create(
            Lesson(
                workshop=workshop,
                number=i + 1,
                title=f"Lektion {i + 1}",
                content=paragraph(i, 300),
                status=Lesson.Status.READY,
                chunk_ids=[chunks[(n + i) % len(chunks)].pk],
                generated_at=now,
            )
            for i in range(5)
        )
        Mindmap.objects.create(
            owner=user,
            title=f"Mindmap {n}",
            tree={
                "title": f"Thema {n}",
                "children": [
                    {
                        "title": f"Teil {i}",
                        "source": chunks[i % len(chunks)].pk,
                        "children": [{"title": f"Punkt {i}.{j}", "children": []} for j in range(4)],
                    }
                    for i in range(6)
                ],
            },
        )


def seed_progress(users: list[User], now: datetime, days: int) -> None:
    """A session of 20 messages most days, and a quiz and some card flips every few days."""
    for user in users:
        sessions = StudySession.objects.bulk_create(
            StudySession(
                user=user,
                started_at=now - timedelta(days=day, hours=3),
                ended_at=now - timedelta(days=day, hours=3) + timedelta(minutes=40),
                message_count=20,
            )
            for day in range(days)
            if day % 7 != 3
        )
        events = [
            Event(
                user=user,
                kind=Event.Kind.MESSAGE,
                at=session.started_at + timedelta(minutes=2 * i),
                session=session,
            )
            for session in sessions
            for i in range(20)
        ]
        events += [
            Event(user=user, kind=Event.Kind.QUIZ, at=now - timedelta(days=day), score_percent=80)
            for day in range(0, days, 3)
        ]
        events += [
            Event(user=user, kind=Event.Kind.CARD_FLIP, at=now - timedelta(days=day, minutes=i))
            for day in range(0, days, 2)
            for i in range(10)
        ]
        Event.objects.bulk_create(events)


# What htmx asks for as a fragment; opened by its address, each is its page instead.
FRAGMENTS = {"connections", "privacy indicator", "reader page"}


def pages(vault: Vault, now: datetime) -> list[tuple[str, User, str]]:
    """Every page a person opens, as (name, who opens it, URL): the student's own things and
    the teacher's pages."""
    student, teacher = vault.student, vault.teacher
    thread = Thread.objects.filter(owner=student).order_by("pk").first()
    quiz = Quiz.objects.filter(owner=student).order_by("pk").first()
    workshop = Workshop.objects.filter(owner=student).order_by("pk").first()
    deck = Deck.objects.filter(owner=student).order_by("pk").first()
    mindmap = Mindmap.objects.filter(owner=student).order_by("pk").first()
    run = IngestRun.objects.filter(owner=student).order_by("pk").first()
    chunk = first_chunk(student)
    attempt = quiz.attempts.order_by("pk").first()
    day = (now - timedelta(days=1)).date().isoformat()
    return [
        ("settings", student, "/accounts/settings/"),
        ("classes (teacher)", teacher, "/classes/"),
        ("class (teacher)", teacher, f"/classes/{vault.school_class.pk}/"),
        ("chat thread", student, f"/chat/{thread.pk}/"),
        ("knowledge base", student, "/vault/"),
        ("knowledge base (teacher)", teacher, "/vault/"),
        ("ingestion run", student, f"/vault/runs/{run.pk}/"),
        ("search form", student, "/vault/search/"),
        ("quizzes", student, "/study/quizzes/"),
        ("quiz", student, f"/study/quizzes/{quiz.pk}/"),
        ("quiz attempt", student, f"/study/quizzes/{quiz.pk}/attempts/{attempt.pk}/"),
        ("workshops", student, "/study/workshops/"),
        ("lesson", student, f"/study/workshops/{workshop.pk}/lessons/1/"),
        ("decks", student, "/study/decks/"),
        ("due cards", student, "/study/decks/due/"),
        ("deck", student, f"/study/decks/{deck.pk}/"),
        ("deck study", student, f"/study/decks/{deck.pk}/study/"),
        ("mindmaps", student, "/study/mindmaps/"),
        ("mindmap", student, f"/study/mindmaps/{mindmap.pk}/"),
        ("reader", student, source_url(chunk)),
        ("reader page", student, f"/vault/documents/{chunk.document_id}/pages/1/?chunk={chunk.pk}"),
        ("progress", student, "/progress/"),
        ("progress day", student, f"/progress/days/{day}/"),
        ("class progress (teacher)", teacher, "/progress/class/"),
        ("privacy", student, "/privacy/"),
        ("connections", student, "/privacy/connections/"),
        ("privacy indicator", student, "/privacy/indicator/"),
        ("prompts (teacher)", teacher, "/privacy/prompts/"),
    ]
