"""A class with a few students who try to break things, played against the running app (daphne,
the workers, Redis, a fake model server): the well-behaved students browse, take the quiz the
teacher handed out and ask a question each; the attackers loop attachments of blank scanned
pages, ask in many chats at once, send 110-second recordings to transcribe, re-ingest a document
and send bodies over the upload limit.
Used by tests/test_hostile_class.py (nothing lost, attackers refused) and
bench/bench_hostile_class.py (the well-behaved students' figures with and without them)."""

import io
import socket
import statistics
import threading
import time
import wave
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import numpy as np
import requests
from PIL import Image

from apps.llm.tests.fake_ollama import part
from tests.helpers.services import wait_until
from tests.helpers.slowness import REPLY

PASSWORD = "learns-in-class-2026"
ANSWER_WORDS = 40
# The fair-share limits the class runs with (docs/classroom.md#a-fair-share-of-the-machine).
LIMITS = {
    "RATE_LIMIT_CHAT_QUESTIONS": "20/m",
    "CHAT_ANSWERS_IN_PROGRESS": "1",
    # Per hour: the counters are fixed windows, and a slow run's rounds split by a minute's
    # boundary never passed 4 a minute (seen on PostgreSQL). Ten rounds put 5 in one window.
    "RATE_LIMIT_ATTACHMENTS": "4/h",
    "RATE_LIMIT_REINGEST": "2/h",
    "RATE_LIMIT_TRANSCRIPTIONS": "4/h",
    "CHAT_TRANSCRIPTIONS_IN_PROGRESS": "1",
    "MAX_UPLOAD_MB": "2",
}
PAGES = ["/", "/chat/", "/study/", "/vault/"]
# What an attacker is refused once past the limits above.
LIMITED = ("chat", "attachment", "voice", "reingest")


def names(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{number}" for number in range(1, count + 1)]


def setup_code(students: list[str], attackers: list[str]) -> str:
    """`manage.py shell` code: the accounts and a three-question quiz the teacher handed out."""
    return f"""
from apps.accounts.models import User
from apps.study.classsets.models import ClassSet
from apps.study.models import Question, Quiz
from tests.helpers.classes import make_class
tess = User.objects.get(username="tess")
accounts = [User.objects.create_user(name, password="{PASSWORD}")
            for name in {students + attackers!r}]
seventh = make_class(tess, accounts)
quiz = Quiz.objects.create(owner=tess, title="Cells", difficulty="beginner", types=["mcq"],
                           requested=3)
for i, (text, options, correct) in enumerate([
    ("What makes ATP?", ["Nucleus", "Mitochondrion", "Ribosome", "Vacuole"], 1),
    ("Do plant cells have walls?", ["Yes", "No"], 0),
    ("Where is the DNA?", ["Ribosome", "Nucleus", "Membrane", "Vacuole"], 1),
]):
    kind = "mcq" if len(options) == 4 else "true_false"
    Question.objects.create(quiz=quiz, position=i, kind=kind, text=text, options=options,
                            correct_index=correct)
ClassSet.objects.hand_out(tess, quiz, seventh)
"""


def talk(body: dict) -> list[dict]:
    """The fake model's script: an answer of ANSWER_WORDS words, nothing to think about."""
    return [] if body.get("think") else [part(f"word{i} ") for i in range(ANSWER_WORDS)]


def blank_scan() -> bytes:
    """A PDF of one blank scanned page: OCR reads nothing from it."""
    buffer = io.BytesIO()
    Image.new("L", (1240, 1754), 255).save(buffer, "PDF", resolution=150)
    return buffer.getvalue()


def noise_wav(seconds: int = 110, rate: int = 8000) -> bytes:
    """A recording of `seconds` of quiet noise (1.8 MB: under the class's 2 MB upload limit),
    for Whisper to work through as it would through speech."""
    samples = np.random.default_rng(7).normal(0, 800, seconds * rate).astype(np.int16)
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(samples.tobytes())
    return buffer.getvalue()


class Student:
    """A browser-like session (the login form's cookie, CSRF header for writes)."""

    def __init__(self, url: str, username: str) -> None:
        self.url, self.username = url, username
        self.http = requests.Session()
        self.http.get(url + "/accounts/login/", timeout=REPLY)
        form = {"username": username, "password": PASSWORD}
        form["csrfmiddlewaretoken"] = self.http.cookies["csrftoken"]
        self.http.post(url + "/accounts/login/", data=form, timeout=REPLY)
        assert "sessionid" in self.http.cookies, f"{username} could not log in"
        self.http.headers["X-CSRFToken"] = self.http.cookies["csrftoken"]

    def get(self, path: str) -> requests.Response:
        return self.http.get(self.url + path, timeout=REPLY)

    def post(self, path: str, **kwargs) -> requests.Response:
        return self.http.post(self.url + path, timeout=REPLY, **kwargs)


@dataclass
class Learned:
    """What a well-behaved student did, and how long it took."""

    page_seconds: list[float] = field(default_factory=list)
    answer_seconds: float = 0.0
    answer: dict = field(default_factory=dict)
    attempt: int = 0  # the quiz attempt's status code


def learn(url: str, username: str) -> Learned:
    student, learned = Student(url, username), Learned()
    for path in PAGES:
        started = time.monotonic()
        assert student.get(path).status_code == 200, path
        learned.page_seconds.append(time.monotonic() - started)
    (handed,) = student.get("/api/v1/study/class-sets").json()
    quiz = student.get(f"/api/v1/study/quizzes/{handed['item_id']}").json()
    answers = [0] * len(quiz["questions"])
    learned.attempt = student.post(
        f"/api/v1/study/quizzes/{quiz['id']}/attempts", json={"answers": answers}
    ).status_code
    thread = student.post("/api/v1/chat/sessions", json={"title": "Cells"}).json()["id"]
    started = time.monotonic()
    with student.post(
        f"/api/v1/chat/sessions/{thread}/messages", json={"content": "What makes ATP?"}, stream=True
    ) as stream:
        assert stream.status_code == 200, stream.text
        for _ in stream.iter_lines():
            pass
    learned.answer_seconds = time.monotonic() - started
    learned.answer = student.get(f"/api/v1/chat/sessions/{thread}").json()["messages"][-1]
    return learned


def oversized_body(url: str) -> int:
    """The status of an upload announcing 2 GB, of which 1 MiB is sent before the answer."""
    address = urlsplit(url)
    head = (
        "POST /api/v1/vault/documents HTTP/1.1\r\n"
        f"Host: {address.netloc}\r\nContent-Type: application/octet-stream\r\n"
        f"Content-Length: {2 * 1024**3}\r\n\r\n"
    )
    with socket.create_connection((address.hostname, address.port), timeout=REPLY) as sock:
        sock.sendall(head.encode())
        try:
            for _ in range(16):
                sock.sendall(b"x" * 65536)
        except OSError:
            pass  # refused and closed before all of it was sent
        answer = sock.recv(65536)
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/") else 0


@dataclass
class Attacker:
    """A student set to attack: signed in, with a document to re-ingest, ten chats and a long
    recording; the id of the last recording the server took."""

    student: Student
    document: int
    threads: list[int]
    scan: bytes
    voice: bytes
    transcription: int = 0


def arm(url: str, username: str) -> Attacker:
    student = Student(url, username)
    notes = {"file": ("notes.md", b"# Cells\n\nMitochondria make ATP.\n" * 50)}
    document = student.post("/api/v1/vault/documents", files=notes).json()["id"]
    threads = [
        student.post("/api/v1/chat/sessions", json={"title": "Flood"}).json()["id"]
        for _ in range(10)
    ]
    return Attacker(student, document, threads, blank_scan(), noise_wav())


def attack(attacker: Attacker, stop: threading.Event, rounds: int = 10) -> Counter:
    """Loop every abuse until `stop`, at least `rounds` times (past every limit); the statuses
    each kind got, as ("chat", 429): count. Recordings are sent without waiting for their text,
    as fast as the server takes them.

    A limit's window ends at a minute of its own for each person (django-ratelimit adds a
    jitter from the key), so `rounds` attempts can fall on both sides of it and each stay
    under the limit: an attacker not yet refused somewhere goes on, as a real one would, for up
    to `rounds` more."""
    student, seen = attacker.student, Counter()
    done = 0

    def going_on() -> bool:
        if done < rounds or not stop.is_set():
            return True
        refused_everywhere = all(seen[kind, 429] for kind in LIMITED)
        return not refused_everywhere and done < 2 * rounds

    while going_on():
        done += 1
        for thread in attacker.threads:  # many chats at once
            asked = student.post(
                f"/api/v1/chat/sessions/{thread}/messages",
                json={"content": "Write a very long essay"},
                stream=True,
            )
            seen["chat", asked.status_code] += 1
            asked.close()  # the answer is written all the same
        attached = student.post(
            f"/chat/{attacker.threads[0]}/attachments/", files={"file": ("scan.pdf", attacker.scan)}
        )
        seen["attachment", attached.status_code] += 1
        spoken = student.post(
            "/api/v1/chat/transcribe?wait=0", files={"file": ("talk.wav", attacker.voice)}
        )
        seen["voice", spoken.status_code] += 1
        if spoken.status_code in (200, 202):
            attacker.transcription = spoken.json().get("id", 0)
        again = student.post(f"/api/v1/vault/documents/{attacker.document}/reingest")
        seen["reingest", again.status_code] += 1
        seen["oversized", oversized_body(student.url)] += 1
        stop.wait(0.2)
    return seen


def transcribed(attacker: Attacker) -> None:
    """Wait until the attacker's last recording is transcribed (or failed): one at a time each,
    so then none of theirs is left on the jobs worker."""
    url = f"/api/v1/chat/transcriptions/{attacker.transcription}"
    if attacker.transcription:
        wait_until(
            lambda: attacker.student.get(url).json()["status"] != "transcribing",
            timeout=300,
            what=f"{attacker.student.username}'s last transcription",
        )


def summary(learned: list[Learned]) -> dict:
    pages = sorted(second for one in learned for second in one.page_seconds)
    answers = sorted(one.answer_seconds for one in learned)
    return {
        "page p95 ms": 1000 * pages[min(len(pages) - 1, round(0.95 * (len(pages) - 1)))],
        "answer median s": statistics.median(answers),
        "answer max s": answers[-1],
    }
