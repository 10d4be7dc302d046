"""A scripted model server for study tests, documents with chunks to generate from, the worker
run in this process, and the questions a model answers with."""

import json

from apps.llm.tests.fake_ollama import FakeOllama, part
from apps.study import kinds, tasks
from apps.study.errors import GenerationError, StudyError
from apps.study.workshops.generation import fill_lesson, fill_workshop, start_lesson, start_workshop
from apps.study.workshops.models import Lesson
from apps.vault.models import Chunk
from apps.vault.tests.helpers import ingest, upload
from tests.helpers.documents import make_document


def run_worker() -> list[tuple[str, int]]:
    """What a study worker does with every generation waiting for one: the task's own body,
    run here (the on_commit that queues it never fires inside a test's transaction)."""
    waiting = [
        (kind, pk)
        for kind, made in kinds.KINDS.items()
        for pk in made.model.objects.filter(status="generating", worker="").values_list(
            "pk", flat=True
        )
    ]
    for kind, pk in waiting:
        tasks.generate.apply(args=(kind, pk))
    return waiting


def create_workshop(user, **asked) -> tuple:
    """Start and plan a workshop here and now; nothing is kept when it fails. (the workshop,
    badges just earned)."""
    workshop, _ = start_workshop(user, **asked)
    try:
        badges = fill_workshop(workshop)
    except StudyError:
        workshop.delete()
        raise
    return workshop, badges


def write_lesson(lesson: Lesson) -> Lesson:
    """Write the lesson here and now unless it is written or being written; a failure is
    stored on the lesson, then raised."""
    if not start_lesson(lesson):
        return lesson
    try:
        fill_lesson(lesson)
    except GenerationError as error:
        lesson.status, lesson.error = Lesson.Status.FAILED, str(error)
        lesson.save(update_fields=["status", "error"])
        raise
    return lesson


def generate(client, path: str, body: dict) -> dict:
    """POST a generation to the API (202, generating), let the worker make it, and GET it."""
    started = client.post(path, body, content_type="application/json")
    assert started.status_code == 202, started.content
    assert started.json()["status"] == "generating"
    run_worker()
    return client.get(f"{path}/{started.json()['id']}").json()


class StudyModel(FakeOllama):
    """The fake Ollama, answering chat requests with `answers` in turn (the last repeats)."""

    def __init__(self) -> None:
        super().__init__(self.next_answer)
        self.answers: list[str] = ["{}"]

    def next_answer(self, body: dict) -> list[dict]:
        index = min(max(len(self.chats) - 1, 0), len(self.answers) - 1)
        return [part(self.answers[index])]

    def answer(self, *answers: object) -> None:
        self.answers = [a if isinstance(a, str) else json.dumps(a) for a in answers]

    def prompt(self, index: int = -1) -> str:
        return self.chats[index]["messages"][-1]["content"]


def add_chunks(document, texts: list[str]) -> list[Chunk]:
    return [
        Chunk.objects.create(
            document=document, document_sha256=document.sha256, ordinal=i, text=text, page=i + 1
        )
        for i, text in enumerate(texts)
    ]


def make_studied_document(owner, filename: str = "cells.txt", chunks: int = 3):
    document = make_document(owner, filename, status="done")
    add_chunks(
        document,
        [
            f"{filename} part {i}: the mitochondrion is the powerhouse of the cell."
            for i in range(chunks)
        ],  # fmt: skip
    )
    return document


def mcq(n: int = 0, **fields) -> dict:
    return {
        "type": "mcq",
        "question": f"Which organelle makes energy, case {n}?",
        "options": ["Nucleus", "Mitochondrion", "Ribosome", "Golgi apparatus"],
        "correct_index": 1,
        "explanation": "The mitochondrion is the powerhouse of the cell.",
        "source": 1,
        **fields,
    }


def true_false(n: int = 0, **fields) -> dict:
    return {
        "type": "true_false",
        "question": f"Cells have mitochondria, case {n}.",
        "options": ["True", "False"],
        "correct_index": 0,
        "explanation": "Most eukaryotic cells have them.",
        **fields,
    }


def questions(count: int) -> dict:
    return {"questions": [mcq(i) if i % 2 == 0 else true_false(i) for i in range(count)]}


RETRIEVAL_NOTES = """# Retrieval

BM25 is a ranking function that scores passages by term frequency. The tokenizer keeps
identifiers like BZ_OUTBUFF_FULL whole, so an exact error code finds its passage.

# Vectors

FAISS is a library for similarity search over dense vectors. HNSW is a graph index for
approximate search, and RRF fuses the dense and the keyword ranking with k = 60.
"""

CELL_NOTES = """# Zellen

Mitochondrien sind die Kraftwerke der Zelle. Ribosomen bauen Proteine aus Aminosäuren.
Lysosomen sind die Verdauungsorgane der Zelle.

# Pflanzen

Chloroplasten enthalten Chlorophyll, das rotes und blaues Licht absorbiert. Die Vakuole
speichert Wasser und gibt der Pflanzenzelle Festigkeit.
"""


class Notes:
    """Alice's two note files in her vault; `edit` ingests a new version of one, which retires
    the chunks of the old one (and stales what cites them)."""

    def __init__(self, owner, folder, capture) -> None:
        self.owner, self.folder, self.capture = owner, folder, capture
        for name, text in (("retrieval.md", RETRIEVAL_NOTES), ("cells.md", CELL_NOTES)):
            (folder / name).write_text(text, encoding="utf-8")
            upload(owner, folder / name)
        ingest(owner, django_capture_on_commit_callbacks=capture)

    def edit(self, name: str, text: str) -> None:
        (self.folder / name).write_text(text, encoding="utf-8")
        upload(self.owner, self.folder / name)  # the same name: the same document
        ingest(self.owner, django_capture_on_commit_callbacks=self.capture)

    def make(self, client, route: str, **body) -> int:
        """A deck, workshop, quiz or mindmap cut from the notes by the worker; its id."""
        made = generate(client, f"/api/v1/study/{route}", {"method": "extractive", **body})
        assert made["status"] == "ready", made
        return made["id"]
