"""The privacy canary: a student's own document holds a word found nowhere else (and her file's
name another), and so does everything she made from it: a quiz with a blank and a wrong
attempt, a deck with reviews, a mindmap, a workshop with a lesson done, a chat citing it, a file
attached to it, a question she recorded, the web address she imported. She also did the quiz her
teacher handed out to the class. Then every page of the URL map and every GET route of the API,
filled with every id there is, every CSV and export, and the Django admin, are walked as her
teacher, a co-teacher, another teacher and the admin: neither word is in any answer, and nothing
answers 500 (docs/classroom.md#who-reaches-what). Teachers' views are made of class-set material
only."""

import json
import re
import time
from dataclasses import asdict
from datetime import date

import pytest
from django.contrib import admin as django_admin
from django.test import Client
from django.urls import reverse

from apps.chat.models import Message, Thread, Transcription
from apps.llm import audit, egress
from apps.study.classsets.results_csv import TABLES
from apps.study.tests.helpers import StudyModel, generate
from apps.vault.models import Category, Chunk
from apps.vault.tests.helpers import ingest, upload
from tests.helpers.routes import (
    BY_NAME,
    ROWS,
    Route,
    api_routes,
    every_row,
    page_routes,
    quietly,
)
from tests.helpers.school import admin, attach, co_teacher, side
from tests.helpers.users import client_for

pytestmark = pytest.mark.django_db
WORD = "zorblax4471"
FILE_WORD = "quuxly"
DIARY = f"""# {WORD.title()} locker

My locker code is {WORD}. The {WORD} locker stands beside the gym door.
{WORD.title()} is the word I use for my bike lock as well.

# {WORD.title()} secrets

The {WORD} code opens the blue locker in the east corridor. Nobody else knows {WORD}.
A {WORD} padlock is a lock that keeps my diary safe.
"""
JSON = "application/json"
EXPORTS = ["csv", "apkg", "md", "pdf", "svg", "png"]  # every study export's format
# Pages that read their query: what each is asked with, besides nothing.
PAGE_QUERIES = {
    "/study/class-sets/": {"class": "class"},
    "/progress/class/": {"class": "class"},
    "/study/class-sets/{pk}/results.{fmt}": {"table": list(TABLES)},
    "/vault/search/": {"q": ["locker"]},
    "/study/quizzes/{pk}/": {"mode": ["all"]},
    "/study/decks/{pk}/study/": {"mode": ["all"]},
}
# An API query parameter pointing at no row, and what it is asked with (`q`: a word of hers
# that is not the canary, so an answer never holds the canary because it repeats the question).
API_QUERIES = {"q": ["locker"]}


@pytest.fixture
def model(settings):
    yield from StudyModel().serve(settings, OLLAMA_RETRIES=0)


@pytest.fixture
def school(model, tmp_path, django_capture_on_commit_callbacks) -> dict:
    ours = side("tess", "Tess-7b", "Alice Lane")
    otto = side("otto", "Otto-9c", "Sam Stone")
    people = {"tess": ours.teacher, "cora": co_teacher("cora", ours), "otto": otto.teacher}
    confide(ours.student, tmp_path, django_capture_on_commit_callbacks)
    return people | {"ada": admin(), "alice": ours.student}


def confide(student, folder, capture) -> None:
    """The student's own material, every piece of it holding the canary."""
    (folder / f"diary-{FILE_WORD}.md").write_text(DIARY, encoding="utf-8")
    # In the school's category, whose pages are the teachers'.
    biology = Category.objects.create(name="Biology")
    document = upload(student, folder / f"diary-{FILE_WORD}.md", category=biology)
    ingest(student, django_capture_on_commit_callbacks=capture)
    client = client_for(student)
    scope = {"method": "extractive", "document_ids": [document.pk]}
    made = {
        route: generate(client, f"/api/v1/study/{route}", scope | body)
        for route, body in (
            ("quizzes", {"num_questions": 5}),
            ("decks", {"num_cards": 10}),
            ("mindmaps", {"title": f"My {WORD} map"}),
            ("workshops", {"num_lessons": 5}),
        )
    }
    assert all(item["status"] == "ready" for item in made.values()), made
    quiz = made["quizzes"]
    for answers in ([None] * len(quiz["questions"]), [0] * len(quiz["questions"])):
        url = f"/api/v1/study/quizzes/{quiz['id']}/attempts"
        assert client.post(url, {"answers": answers}, content_type=JSON).status_code == 201
    deck = made["decks"]
    for card in deck["cards"][:2]:
        url = f"/api/v1/study/decks/{deck['id']}/cards/{card['id']}/review"
        assert client.post(url, {"outcome": "review"}, content_type=JSON).status_code == 200
    lesson = f"/api/v1/study/workshops/{made['workshops']['id']}/lessons/1/complete"
    assert client.post(lesson).status_code == 200
    chat(student, document)
    imported(student)


def chat(student, document) -> None:
    thread = Thread.objects.create(owner=student, title=f"{WORD} locker", titled=True)
    question = Message.objects.create(
        thread=thread, role=Message.Role.USER, content=f"Is {WORD} my locker code?"
    )
    chunk = Chunk.objects.filter(document=document).first()
    Message.objects.create(
        thread=thread,
        role=Message.Role.ASSISTANT,
        content=f"Yes: your locker code is {WORD} [1].",
        citations=[
            {
                "number": 1,
                "chunk_id": chunk.pk,
                "document_id": document.pk,
                "filename": document.filename,
                "page": chunk.page,
                "text": chunk.text,
            }
        ],  # fmt: skip
    )
    attach(question, f"locker-{FILE_WORD}.pdf", f"Locker {WORD}, east corridor.")
    Transcription.objects.create(
        owner=student,
        stored_name="locker.audio",
        size_bytes=1,
        status=Transcription.Status.READY,
        text=f"Where is the {WORD} locker?",
    )


def imported(student) -> None:
    """A web page she imported, as the egress record notes it."""
    entry = egress.Connection(
        at=time.time(),
        pid=1,
        role="worker",
        host="203.0.113.7",
        port=443,
        kind="url-import",
        detail=f"https://notes.example/{WORD}/{FILE_WORD}",
        user_id=student.pk,
    )
    path = audit.record_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(asdict(entry)) + "\n", encoding="utf-8")


def every_id() -> dict[str, object]:
    """What each kind of route parameter takes: every row there is, and plain values."""
    return every_row() | {
        "position": [0, 1],
        "number": [1, 2],
        "format": EXPORTS,
        "day": [date.today().isoformat()],
    }


def with_queries(urls: list[str], asked: dict, ids: dict) -> list[str]:
    """Each url as it is and with each of its query parameters in turn."""
    out = list(urls)
    for name, values in asked.items():
        values = ids[values] if isinstance(values, str) else values
        out += [f"{url}?{name}={value}" for url in urls for value in values]
    return out


def api_queries(route: Route) -> dict:
    """What each query parameter of an API route is asked with: the values it allows, every row
    of what it points at, or API_QUERIES's."""
    allowed = dict(route.choices)
    asked = {}
    for name in route.query:
        if name in allowed:
            asked[name] = list(allowed[name])
        elif BY_NAME.get(name) in ROWS:
            asked[name] = BY_NAME[name]
        elif name in API_QUERIES:
            asked[name] = API_QUERIES[name]
    return asked


def admin_urls() -> list[str]:
    """The Django admin: its index, and each model's list, add page, and every row's change,
    history and delete pages."""
    urls = [reverse("admin:index")]
    for model in django_admin.site._registry:
        name = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        urls += [reverse(f"{name}_changelist"), reverse(f"{name}_add")]
        for pk in model.objects.values_list("pk", flat=True):
            urls += [
                reverse(f"{name}_{page}", args=[pk]) for page in ("change", "history", "delete")
            ]
    return urls


def walk(client: Client) -> dict[str, object]:
    """GET every page (whole, and as htmx asks for its fragment), API route and admin page;
    each url with its answer."""
    ids = every_id()
    pages, urls = [], []
    for route in page_routes():
        pages += with_queries(route.urls(ids), PAGE_QUERIES.get(route.path, {}), ids)
    for route in api_routes(client):
        if route.method == "GET":
            urls += with_queries(route.urls(ids), api_queries(route), ids)
    urls += admin_urls()
    client.raise_request_exception = False
    with quietly():
        answers = {url: client.get(url) for url in dict.fromkeys(pages + urls)}
        fragments = {f"{url} (htmx)": client.get(url, HTTP_HX_REQUEST="true") for url in pages}
    return answers | fragments


def leaks(answers: dict) -> list[str]:
    found = []
    for url, response in answers.items():
        content = b"".join(response.streaming_content) if response.streaming else response.content
        body = content.decode("utf-8", "replace").lower()
        if response.status_code >= 500:
            found.append(f"{url}: {response.status_code}")
        for word in (WORD, FILE_WORD):
            if word in body:
                found.append(f"{url}: {word}")
    return found


@pytest.mark.parametrize("person", ["tess", "cora", "otto", "ada"])
def test_no_teacher_nor_the_admin_ever_sees_a_students_own_material(school, person):
    answers = walk(client_for(school[person]))
    found = leaks(answers)  # once: a file's answer is read as it streams

    assert found == [], "\n".join(found)
    # The walk reached the pages that could show it.
    reached = {url for url, response in answers.items() if response.status_code == 200}
    for url in ("/progress/class/?class=", "/api/v1/progress/class?class_id=", "/admin/"):
        assert any(seen.startswith(url) for seen in reached), url
    if person != "otto":
        assert any(seen.endswith("/results.csv?table=questions") for seen in reached)


def test_the_walk_finds_the_word_where_it_is_hers_to_see(school):
    found = leaks(walk(client_for(school["alice"])))

    for page in (
        "/study/quizzes/",
        "/chat/",
        "/api/v1/chat/transcriptions/",
        "/api/v1/vault/documents",  # her list, and her original file
        "/vault/documents/",  # the reader
        "/api/v1/vault/chunks/",
        "/privacy/",
    ):
        assert any(line.startswith(f"{page}") for line in found), page
    assert any(re.match(r"/api/v1/vault/documents/\d+/file: ", line) for line in found)
    assert not [line for line in found if line.endswith(": 500")]
