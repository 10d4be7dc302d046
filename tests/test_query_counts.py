"""How many database queries each page runs with a realistic vault (tests/vault_seed.py), pinned;
and that the number does not grow with the vault: with three times the documents, chats, decks,
quizzes, workshops, mindmaps and days of study, every page runs as many queries as before."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.helpers.clock import MIDDAY
from tests.helpers.users import client_for
from tests.vault_seed import FRAGMENTS, add, pages, seed

pytestmark = pytest.mark.django_db

# Each page, opened a second time (the first fills the session and the caches). A study list
# also runs one UPDATE that marks the generations whose worker went silent as interrupted.
QUERIES = {
    "settings": 5,
    "classroom (teacher)": 7,  # with the lockouts of its students and the unfinished batches
    "chat thread": 10,
    "knowledge base": 11,
    "knowledge base (teacher)": 11,
    "ingestion run": 4,
    "search form": 4,
    "quizzes": 15,  # with how many quizzes wait under "From your teacher"
    # Starting or resuming an attempt is a transaction of its own (two tabs cannot both start
    # one): in a test, its savepoint and release are two of these.
    "quiz": 8,
    "quiz attempt": 10,  # the review in the asker's order, with the class policy
    "workshops": 14,
    "lesson": 11,
    "decks": 14,
    "due cards": 6,
    "deck": 10,
    "deck study": 8,
    "mindmaps": 13,
    "mindmap": 5,
    "source passage": 3,
    "progress": 7,
    "progress day": 7,
    "class progress (teacher)": 8,
    "privacy": 8,  # with the student's own stored bytes (documents, attachments)
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
