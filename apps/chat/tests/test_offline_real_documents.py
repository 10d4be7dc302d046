"""Offline answers over real documents, judged (tests/offline_answers/): the bzip2 manual as
Debian installs it (PDF), two chapters of the German Debian FAQ (one a scan read back by OCR, one
a PDF) and passwd(1)/chage(1) in German (DOCX), ingested with the real embedded encoder. Of 20
questions (10 English, 10 German), each with the sentence of its document that answers it, at
least 16 answers quote that sentence; every quoted sentence stands verbatim in the chunk it
cites, and none ends mid-sentence."""

import difflib
import gzip
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import pytest

from apps.chat import offline
from apps.chat.tools import Toolbox
from apps.vault.search import live
from apps.vault.tests.helpers import closed_port_url, ingest, upload
from bench.retrieval_eval import DOCUMENTS, MAKERS

# Ingesting a 38-page manual and OCR-reading a scan take minutes on a busy 2-core machine.
pytestmark = [pytest.mark.embedded, pytest.mark.django_db, pytest.mark.timeout(1200)]

HERE = Path(__file__).resolve().parents[3] / "tests" / "offline_answers"
BZIP2_MANUAL = Path("/usr/share/doc/bzip2/manual.pdf.gz")
QUOTE = re.compile(r"^> (?P<text>.+) \[(?P<number>\d+)\]$")
PIECES = re.compile(r"\s+…\s+|(?<=[.!?])\s+")  # an ellipsis: a gap in the passage
CLOSED = re.compile(r"[.!?:…][\"'»«“”’)\]]*$")
COMMANDS = re.compile(r":\s+[a-z][\w.+-]*(?: \S+){0,7}$")  # "…Befehle aus: dpkg --search foo"


@dataclass(frozen=True)
class Judged:
    id: str
    file: str
    question: str
    sentences: list[str]  # any of them answers it


def judged() -> list[Judged]:
    rows = (HERE / "questions.tsv").read_text(encoding="utf-8").splitlines()
    found = []
    for row in rows:
        if row.strip() and not row.startswith("#"):
            id_, file, question, sentences = row.split("\t")
            found.append(Judged(id_, file, question, sentences.split(" || ")))
    return found


def sources() -> dict[str, tuple[str, str]]:
    """Each document's format at test time and language."""
    rows = (HERE / "sources.tsv").read_text(encoding="utf-8").splitlines()
    return {
        file: (made, language)
        for file, made, language, *_ in (row.split("\t") for row in rows if row[:1] != "#")
    }


def normalised(text: str) -> str:
    """Case, ligatures (ﬁ), quotes and white space aside: the words in order."""
    return " ".join(re.findall(r"\w+", unicodedata.normalize("NFKC", text).casefold()))


def holds(answer: str, sentence: str, ocr: bool) -> bool:
    """The answer quotes the sentence; read back by OCR, within a slip or two ("lan Murdock")."""
    answer, sentence = normalised(answer), normalised(sentence)
    if sentence in answer:
        return True
    if not ocr:
        return False
    size = len(sentence)
    return any(
        difflib.SequenceMatcher(None, answer[start : start + size], sentence).ratio() >= 0.95
        for start in range(0, max(1, len(answer) - size + 1))
    )


@pytest.fixture
def vault(alice, settings, tmp_path, django_capture_on_commit_callbacks):
    if not BZIP2_MANUAL.exists():
        pytest.skip(f"{BZIP2_MANUAL} is not installed (Debian's bzip2 package)")
    settings.LLM_BACKEND = settings.EMBEDDING_BACKEND = "embedded"
    settings.OLLAMA_HOST = closed_port_url()  # no model server at all
    live.forget()
    manual = tmp_path / "bzip2-manual.pdf"
    manual.write_bytes(gzip.decompress(BZIP2_MANUAL.read_bytes()))
    upload(alice, manual)
    for name, made in (("debian-faq-1.de.txt", "scanned-pdf"), ("debian-faq-8.de.txt", "pdf")):
        path = tmp_path / f"{name.removesuffix('.txt')}.pdf"
        MAKERS[made]((HERE / name).read_text(encoding="utf-8"), path)
        upload(alice, path)
    passwd = tmp_path / "passwd-chage.de.docx"
    MAKERS["docx"]((DOCUMENTS / "passwd-chage.de.txt").read_text(encoding="utf-8"), passwd)
    upload(alice, passwd)
    run = ingest(alice, django_capture_on_commit_callbacks=django_capture_on_commit_callbacks)
    assert run.status == "done"
    yield alice
    live.forget()


def quoted_runs(answer: str) -> list[tuple[str, int]]:
    """The answer's quotes (text, source number); anything but the line above them, a document
    name or a quote fails the test."""
    line, *paragraphs = answer.strip().split("\n\n")
    assert line.startswith("*No language model wrote this answer")
    runs = []
    for paragraph in paragraphs:
        if paragraph.startswith("From **"):
            continue
        match = QUOTE.match(paragraph)
        assert match, paragraph
        runs.append((match["text"], int(match["number"])))
    return runs


def test_twenty_judged_offline_answers_quote_the_sentence_that_answers(vault):
    questions, documents = judged(), sources()
    languages = [documents[q.file][1] for q in questions]
    assert languages.count("en") == languages.count("de") == 10
    answered = []
    for question in questions:
        toolbox = Toolbox(vault)
        for query in offline.queries(question.question):  # as the chat's answer searches
            toolbox.run("search_knowledge_base", {"query": query})
        answer = offline.quoted_answer(question.question, toolbox.citations)
        chunks = {c["number"]: " ".join(c["text"].split()) for c in toolbox.citations}

        runs = quoted_runs(answer)
        assert runs, (question.id, answer)
        for text, number in runs:
            for piece in PIECES.split(text):
                assert piece in chunks[number], (question.id, piece)
            assert CLOSED.search(text) or COMMANDS.search(text), (question.id, text)
        ocr = documents[question.file][0] == "scanned-pdf"
        if any(holds(answer, sentence, ocr) for sentence in question.sentences):
            answered.append(question.id)
    # Measured here: 17 of 20 (docs/chat.md); the misses are sentences cut by a chunk's end.
    assert len(answered) >= 16, sorted({q.id for q in questions} - set(answered))
