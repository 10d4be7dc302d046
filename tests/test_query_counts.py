"""How many database queries each page runs with a realistic vault (tests/vault_seed.py), pinned;
and that the number does not grow with the vault: with three times the documents, chats, decks,
quizzes, workshops, mindmaps and days of study, every page runs as many queries as before."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.study.classsets.models import ClassSet
from apps.study.classsets.policy import Reveal
from apps.study.quizzes.models import Attempt, Question, Quiz
from apps.vault.models import Chunk
from tests.helpers.classes import class_of
from tests.helpers.clock import MIDDAY
from tests.helpers.users import client_for
from tests.vault_seed import FRAGMENTS, add, pages, seed

pytestmark = pytest.mark.django_db

# Each page, opened a second time (the first fills the session and the caches). A study list
# also runs one UPDATE that marks the generations whose worker went silent as interrupted.
QUERIES = {
    "settings": 5,  # with the history of the student's login card
    "classes (teacher)": 4,
    "class (teacher)": 9,  # with the lockouts of its students and the unfinished batches
    "chat thread": 10,
    "knowledge base": 10,
    "knowledge base (teacher)": 10,
    "ingestion run": 4,
    "search form": 4,
    "quizzes": 15,  # with how many quizzes wait under "From your teacher"
    # Starting or resuming an attempt is a transaction of its own (two tabs cannot both start
    # one): in a test, its savepoint and release are two of these.
    "quiz": 7,
    "quiz attempt": 8,  # the review in the asker's order
    "workshops": 14,
    "lesson": 11,
    "decks": 14,
    "due cards": 6,
    "deck": 10,
    "deck study": 8,
    "mindmaps": 13,
    "mindmap": 5,
    "reader": 5,  # with whether its original may be downloaded
    "reader page": 5,  # a drawn page: its drawing and the passage marked on it
    "progress": 7,
    "progress day": 7,
    "class progress (teacher)": 10,  # with the classes to pick from and the one shown
    "privacy": 7,  # with the student's own stored bytes (files and study items, one query)
    "connections": 2,
    "privacy indicator": 2,
    "prompts (teacher)": 2,
}


def queries_per_page(vault) -> dict[str, int]:
    counts, clients = {}, {}
    for name, user, url in pages(vault, MIDDAY):
        client = clients.setdefault(user.pk, client_for(user))
        headers = {"HTTP_HX_REQUEST": "true"} if name in FRAGMENTS else {}
        assert client.get(url, **headers).status_code == 200, name
        with CaptureQueriesContext(connection) as queries:
            client.get(url, **headers)
        counts[name] = len(queries)
    return counts


def test_every_page_runs_as_many_queries_with_three_times_the_vault(midday):
    vault = seed(MIDDAY, documents=20, chats=3, decks=2, days=10)
    small = queries_per_page(vault)

    add(vault, MIDDAY, documents=40, chats=6, decks=4, days=20)

    assert queries_per_page(vault) == small


def test_each_page_runs_the_queries_it_needs_and_no_more(midday):
    vault = seed(MIDDAY, documents=20, chats=3, decks=2, days=10)
    assert queries_per_page(vault) == QUERIES


# A student on a quiz the teacher handed out to the class: the play page, the page's submit and
# review, the API's quiz and its submit (the review in its reply), each made a second time. The
# student's seat (apps/study/quizzes/seat.py) reads the class set and its teacher's time zone
# once per request, and the questions once.
CLASS_QUIZ_QUERIES = {
    "class quiz": 11,  # with the new attempt's transaction, as for one's own quiz
    # Its attempt, then the submit's transaction (in a test, two savepoints and their
    # releases), the sources of the questions missed, the progress event and the badges.
    "class quiz submit": 27,
    "class quiz attempt": 8,
    "class quiz (API)": 8,  # with the attempts handed in: no passage shows before one
    "class quiz attempts (API)": 25,
}


def hand_out_quiz(vault) -> Quiz:
    """The teacher's quiz of ten questions on class passages, handed out with unlimited
    attempts and the answers shown after each."""
    chunks = Chunk.objects.filter(document__owner=vault.teacher).order_by("pk")[:10]
    quiz = Quiz.objects.create(
        owner=vault.teacher, title="Zellen", difficulty="beginner", types=["mcq"], requested=10
    )
    Question.objects.bulk_create(
        Question(
            quiz=quiz,
            position=i,
            kind=Question.Kind.MCQ,
            text=f"Welche Organelle {i}?",
            options=["Zellkern", "Mitochondrium", "Ribosom", "Golgi"],
            correct_index=i % 4,
            explanation="Weil.",
            chunk_ids=[chunk.pk],
        )
        for i, chunk in enumerate(chunks)
    )
    ClassSet.objects.hand_out(
        vault.teacher, quiz, class_of(vault.teacher), attempts=None, reveal=Reveal.AFTER_ATTEMPT
    )
    return quiz


def class_quiz_queries(vault, quiz: Quiz) -> dict[str, int]:
    """Each other student has handed in an attempt more; then the measured student's round of
    requests, made twice, and counted the second time."""
    Attempt.objects.bulk_create(
        Attempt(quiz=quiz, user=other, answers=[0] * 10, correct=3, total=10, submitted_at=MIDDAY)
        for other in vault.students[1:]
    )
    client, url = client_for(vault.student), f"/study/quizzes/{quiz.pk}/"
    api = f"/api/v1/study/quizzes/{quiz.pk}"
    answers = {f"q{position}": "0" for position in range(10)}
    requests = {
        "class quiz": (200, lambda latest: client.get(url)),
        "class quiz submit": (302, lambda latest: client.post(url + "submit/", answers)),
        "class quiz attempt": (200, lambda latest: client.get(f"{url}attempts/{latest.pk}/")),
        "class quiz (API)": (200, lambda latest: client.get(api)),
        "class quiz attempts (API)": (
            201,
            lambda latest: client.post(
                api + "/attempts", {"answers": [0] * 10}, content_type="application/json"
            ),
        ),
    }
    counts = {}
    for _round in range(2):
        for name, (status, request) in requests.items():
            latest = quiz.attempts.filter(user=vault.student, submitted_at__isnull=False).first()
            with CaptureQueriesContext(connection) as queries:
                assert request(latest).status_code == status, name
            counts[name] = len(queries)
    return counts


def test_a_class_quiz_runs_as_many_queries_with_three_times_the_vault(midday):
    vault = seed(MIDDAY, documents=20, chats=3, decks=2, days=10)
    quiz = hand_out_quiz(vault)
    small = class_quiz_queries(vault, quiz)

    add(vault, MIDDAY, documents=40, chats=6, decks=4, days=20)

    assert class_quiz_queries(vault, quiz) == small


def test_a_class_quiz_runs_the_queries_it_needs_and_no_more(midday):
    vault = seed(MIDDAY, documents=20, chats=3, decks=2, days=10)
    assert class_quiz_queries(vault, hand_out_quiz(vault)) == CLASS_QUIZ_QUERIES
