"""A scripted model server for study tests, and documents with chunks to generate from."""

import json

import pytest

from apps.llm.tests.fake_ollama import FakeOllama, part
from apps.vault.models import Chunk
from conftest import make_document


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


@pytest.fixture
def model(settings):
    yield from StudyModel().serve(settings, OLLAMA_RETRIES=0)


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
