"""A classroom under load: 30 students (Locust users, headless) logged in through the login form,
each with a chat page's websocket open the whole run, browsing a page every 1–3 s, asking 3
questions over the socket and generating a quiz and a deck through the API; then a ramp that
raises the page request rate until page p95 crosses 500 ms.

The parts are the real ones, each its own process as `make run` starts them, on a throwaway
DATA_DIR: Redis, daphne, the jobs worker, the chat worker, and a fake Ollama *server* streaming
at 20 tokens/s (bench/model_server.py). A teacher, the students and a few class documents
(uploaded and ingested for real) are made through the API. Sizes: see bench/README.md.
"""

from gevent import monkey

monkey.patch_all()  # before anything opens a socket: Locust's users are greenlets

import json  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

import gevent  # noqa: E402
import psutil  # noqa: E402
import requests  # noqa: E402
import websocket  # noqa: E402
from locust import HttpUser, events, task  # noqa: E402
from locust.env import Environment  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
STUDENTS = int(os.environ.get("CLASSROOM_STUDENTS", "30"))
SECONDS = float(os.environ.get("CLASSROOM_SECONDS", "150"))  # the class's run
QUESTIONS = int(os.environ.get("CLASSROOM_QUESTIONS", "3"))  # per student
SPAWN_RATE = float(os.environ.get("CLASSROOM_SPAWN_RATE", "1"))  # students logging in a second
MODEL_DELAY = float(os.environ.get("CLASSROOM_MODEL_DELAY", "0.05"))  # 20 tokens/s
CHAT_PROCESSES = int(os.environ.get("CHAT_PROCESSES", "2"))  # as `make run`
CHAT_CONCURRENCY = int(os.environ.get("CHAT_CONCURRENCY", "16"))
WEB_PROCESSES = int(os.environ.get("WEB_PROCESSES", "1"))  # daphnes on the one port, as `make run`
RAMP_START = float(os.environ.get("CLASSROOM_RAMP_START", "10"))  # pages/s
RAMP_STEP = float(os.environ.get("CLASSROOM_RAMP_STEP", "1.5"))  # times the last rate
RAMP_STAGES = int(os.environ.get("CLASSROOM_RAMP_STAGES", "8"))
RAMP_SECONDS = float(os.environ.get("CLASSROOM_RAMP_SECONDS", "15"))  # per stage
RAMP_USERS = int(os.environ.get("CLASSROOM_RAMP_USERS", "60"))
RAMP_LIMIT_MS = 500
TARGETS = {
    "page p95": "≤ 300 ms",
    "sockets dropped": "0",
    "answers lost": "0",
    "first fragment p95": "≤ 100 ms",
    "database is locked": "0",
}
DOCUMENTS = {
    "cells.md": "# Cells\n\nMitochondria make ATP, the cell's energy currency, by cellular "
    "respiration. The nucleus holds the DNA. Ribosomes build proteins from amino acids.",
    "plants.md": "# Plants\n\nPhotosynthesis converts light energy into chemical energy in the "
    "chloroplasts. The Calvin cycle fixes carbon dioxide into sugars using ATP and NADPH.",
    "genetics.md": "# Genetics\n\nGenes are stretches of DNA that code for proteins. Alleles are "
    "versions of a gene; a dominant allele shows in the phenotype over a recessive one.",
}
FIRST_FRAGMENT = re.compile(r'<div id="answer-tokens-(\d+)" hx-swap-oob="beforeend">')
FINISHED = re.compile(r'<article id="message-(\d+)" class="message assistant (\w+)" hx-swap-oob')


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def wait_for(check, what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except (OSError, requests.RequestException, ValueError, KeyError):
            pass
        time.sleep(0.3)
    raise TimeoutError(f"{what} did not come up")


# --- The app ----------------------------------------------------------------------------------


class App:
    """Redis, the fake model server, daphne and both workers on a throwaway DATA_DIR."""

    def __init__(self) -> None:
        self.scratch = Path(tempfile.mkdtemp(prefix="bench-classroom-"))
        self.logs = self.scratch / "logs"
        self.logs.mkdir()
        self.answer_calls = self.scratch / "answer-calls.tsv"
        self.redis_port, self.web_port, self.model_port = free_port(), free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.web_port}"
        self.env = {
            **os.environ,
            "DATA_DIR": str(self.scratch / "data"),
            "HOST": "127.0.0.1",
            "PORT": str(self.web_port),
            "REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            "OLLAMA_HOST": f"http://127.0.0.1:{self.model_port}",
            "LLM_BACKEND": "ollama",
            "EMBEDDING_BACKEND": "ollama",
            "OLLAMA_RETRIES": "0",
            "LOG_LEVEL": "WARNING",
            "DJANGO_SETTINGS_MODULE": "cognivault_site.settings",
            "DJANGO_SUPERUSER_USERNAME": "teacher",
            "DJANGO_SUPERUSER_PASSWORD": "teacher-bench-2026",
            "BENCH_ANSWER_CALLS": str(self.answer_calls),
            # A class shares one address's limits here; the bench measures speed, not limits.
            "RATE_LIMIT_GENERATION": "1000/m",
        }
        self.processes: list[subprocess.Popen] = []

    def spawn(self, name: str, *args) -> None:
        with open(self.logs / f"{name}.log", "w") as out:
            self.processes.append(
                subprocess.Popen(
                    [str(arg) for arg in args],
                    cwd=ROOT,
                    env=self.env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            )

    def manage(self, *args: str) -> None:
        subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            check=True,
            capture_output=True,
        )

    def start(self) -> None:
        bin_dir = Path(sys.executable).parent
        self.spawn(
            "redis",
            shutil.which("redis-server"),
            "--port",
            self.redis_port,
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            self.scratch,
        )
        self.spawn(
            "model",
            sys.executable,
            "-m",
            "apps.llm.tests.fake_ollama",
            self.model_port,
            "--delay",
            MODEL_DELAY,
            "--embedding",
            "1,0,0",
            "--script",
            "bench.model_server:script",
        )
        self.manage("migrate", "--noinput")
        self.manage("createsuperuser", "--noinput", "--email", "teacher@example.org")
        self.spawn(
            "web",
            sys.executable,
            "-m",
            "cognivault_site.serve",
            "-b",
            "127.0.0.1",
            "-p",
            self.web_port,
            "cognivault_site.asgi:application",
        )
        celery = [bin_dir / "celery", "-A", "cognivault_site", "worker", "--loglevel=WARNING"]
        self.spawn("worker", *celery, "-Q", "celery", "--concurrency=2", "-n", "jobs@%h")
        for number in range(CHAT_PROCESSES):
            self.spawn(
                f"chat-{number}",
                *celery,
                "-Q",
                "chat,study",
                "--pool=threads",
                f"--concurrency={CHAT_CONCURRENCY}",
                "-n",
                f"chat-{number}@%h",
            )
        health = self.url + "/api/v1/health"
        wait_for(
            lambda: requests.get(health, timeout=5).json()["worker"]["status"] == "ok",
            "daphne and the workers",
        )
        wait_for(lambda: self.web_listeners() == WEB_PROCESSES, "every web process")

    def web_listeners(self) -> int:
        return sum(
            connection.status == psutil.CONN_LISTEN and connection.laddr.port == self.web_port
            for connection in psutil.net_connections("tcp")
        )

    def stop(self) -> None:
        for process in reversed(self.processes):
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()

    def count_in_logs(self, text: str) -> int:
        return sum(path.read_text(errors="replace").count(text) for path in self.logs.glob("*.log"))

    def answer_call_times(self) -> dict[str, float]:
        """question -> when the model sent the answer's first token (epoch seconds)."""
        calls = {}
        if self.answer_calls.exists():
            for line in self.answer_calls.read_text().splitlines():
                when, question = line.split("\t", 1)
                calls.setdefault(question, float(when) + MODEL_DELAY)
        return calls


def seed(app: App) -> list[tuple[str, str]]:
    """The class: students made by the teacher, class documents uploaded and ingested."""
    teacher = requests.Session()
    token = teacher.post(
        app.url + "/api/v1/auth/token",
        json={"username": "teacher", "password": "teacher-bench-2026"},
        timeout=30,
    ).json()["token"]
    teacher.headers["Authorization"] = f"Bearer {token}"
    names = [f"student{n:02d}" for n in range(STUDENTS)]
    made = teacher.post(app.url + "/api/v1/accounts/students", json={"usernames": names})
    made.raise_for_status()
    for filename, text in DOCUMENTS.items():
        response = teacher.post(
            app.url + "/api/v1/vault/documents",
            files={"file": (filename, text.encode(), "text/markdown")},
            data={"scope": "class"},
            timeout=60,
        )
        response.raise_for_status()
    run = teacher.post(app.url + "/api/v1/vault/ingest", json={}, timeout=60).json()["run_id"]
    wait_for(
        lambda: teacher.get(f"{app.url}/api/v1/vault/ingest/{run}").json()["status"] == "done",
        "the ingestion of the class documents",
    )
    # A worker stores the passwords of a class (docs/classroom.md#creating-a-class).
    wait_for(
        lambda: teacher.get(f"{app.url}/api/v1/accounts/batches").json()[0]["status"] == "ready",
        "the students' passwords",
    )
    return [(row["username"], row["password"]) for row in made.json()]


# --- The students -----------------------------------------------------------------------------


@dataclass
class Question:
    text: str
    sent: float  # epoch seconds
    answer_id: int | None = None
    first: float | None = None  # the first answer fragment on the socket
    ended: str = ""  # the answer's final status as the socket showed it


@dataclass
class Results:
    times: dict[str, list[float]] = field(default_factory=dict)  # request name -> ms
    errors: dict[str, int] = field(default_factory=dict)
    questions: list[tuple[str, int, Question]] = field(default_factory=list)  # user, thread
    sockets: int = 0
    dropped: list[str] = field(default_factory=list)
    study: dict[str, int] = field(default_factory=dict)  # "quiz ready", "deck failed", ...
    recording: bool = True


results = Results()
credentials: list[tuple[str, str]] = []
sessions: list[dict] = []  # the students' cookies once logged in, for the ramp


@events.request.add_listener
def on_request(name, response_time, exception, **kwargs) -> None:
    if not results.recording:
        return
    if exception is None:
        results.times.setdefault(name, []).append(response_time)
    else:
        results.errors[name] = results.errors.get(name, 0) + 1


def add(counter: dict[str, int], key: str) -> None:
    counter[key] = counter.get(key, 0) + 1


class Student(HttpUser):
    """One student: logged in through the form, the chat page's socket open all along, a page
    every 1–3 s; the questions and the two generations at random moments of the run."""

    def wait_time(self) -> float:
        return random.uniform(1, 3)

    def on_start(self) -> None:
        self.username, password = credentials.pop()
        self.log_in(password)
        made = self.client.post(
            "/api/v1/chat/sessions", json={"title": "Biology"}, headers=self.csrf(), name="API chat"
        )
        self.thread = made.json()["id"]
        self.pages = [
            ("/", "home"),
            ("/study/", "hub"),
            ("/vault/", "vault"),
            ("/progress/", "dashboard"),
            (f"/chat/{self.thread}/", "chat"),
            ("/study/quizzes/", "quizzes"),
            ("/study/decks/", "decks"),
        ]
        self.started = time.monotonic()
        # Questions spread over the run, one at a time; the generations anywhere before its end.
        self.ask_at = sorted(random.uniform(5, SECONDS - 30) for _ in range(QUESTIONS))
        self.generate_at = {kind: random.uniform(5, SECONDS - 40) for kind in ("quiz", "deck")}
        self.asked = 0
        self.pending: Question | None = None
        self.ending = False
        cookie = "; ".join(f"{name}={value}" for name, value in self.client.cookies.items())
        ws_url = self.host.replace("http", "ws", 1) + f"/ws/chat/{self.thread}/"
        self.socket = websocket.create_connection(ws_url, cookie=cookie, origin=self.host)
        results.sockets += 1
        self.reader = gevent.spawn(self.read)

    def csrf(self) -> dict:
        return {"X-CSRFToken": self.client.cookies.get("csrftoken", ""), "Referer": self.host}

    def log_in(self, password: str) -> None:
        page = self.client.get("/accounts/login/", name="login form").text
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        form = {"username": self.username, "password": password, "csrfmiddlewaretoken": token}
        self.client.post("/accounts/login/", data=form, name="log in")
        assert "sessionid" in self.client.cookies, f"{self.username} could not log in"
        sessions.append(self.client.cookies.get_dict())

    def read(self) -> None:
        """Every frame of the socket; notes when the current answer starts and ends."""
        while True:
            try:
                frame = self.socket.recv()
            except Exception as error:  # closed by the server, or broken
                if not self.ending:
                    results.dropped.append(f"{self.username}: {error!r}")
                return
            now = time.time()
            question = self.pending
            if question is None or not isinstance(frame, str):
                continue
            if question.first is None:
                match = FIRST_FRAGMENT.search(frame)
                if match:
                    question.answer_id, question.first = int(match.group(1)), now
            for answer_id, status in FINISHED.findall(frame):
                if question.answer_id in (None, int(answer_id)) and status != "streaming":
                    question.answer_id, question.ended = int(answer_id), status
                    self.pending = None

    def on_stop(self) -> None:
        self.ending = True
        self.socket.close()

    @task
    def next_thing(self) -> None:
        elapsed = time.monotonic() - self.started
        for kind, when in list(self.generate_at.items()):
            if elapsed >= when:
                del self.generate_at[kind]
                self.generate(kind)
                return
        if self.asked < QUESTIONS and elapsed >= self.ask_at[self.asked] and not self.pending:
            self.ask()
            return
        path, name = random.choice(self.pages)
        self.client.get(path, name=name)

    def ask(self) -> None:
        self.asked += 1
        text = f"Question {self.asked} of {self.username}: what do mitochondria do?"
        self.pending = Question(text, time.time())
        results.questions.append((self.username, self.thread, self.pending))
        self.socket.send(json.dumps({"content": text}))

    def generate(self, kind: str) -> None:
        """The new contract (202, then poll until ready or failed); a response that is not
        "generating" is taken as the finished item (today's 201)."""
        route = {"quiz": "/api/v1/study/quizzes", "deck": "/api/v1/study/decks"}[kind]
        body = {"quiz": {"num_questions": 5, "difficulty": "beginner"}, "deck": {"num_cards": 10}}
        response = self.client.post(route, json=body[kind], headers=self.csrf(), name=f"API {kind}")
        if response.status_code not in (200, 201, 202):
            add(results.study, f"{kind} refused ({response.status_code})")
            return
        item = response.json()
        deadline = time.monotonic() + 120
        while item.get("status") == "generating" and time.monotonic() < deadline:
            gevent.sleep(1)
            item = self.client.get(f"{route}/{item['id']}", name=f"API {kind} poll").json()
        add(results.study, f"{kind} {item.get('status') or 'ready'}")


class Browser(HttpUser):
    """A student of the ramp: pages only, at the rate the ramp sets for the whole class."""

    rate = RAMP_START  # pages per second over all Browser users

    def wait_time(self) -> float:
        spent = time.monotonic() - self.last_start
        return max(0.0, RAMP_USERS / Browser.rate - spent)

    def on_start(self) -> None:
        # The class's own sessions: the ramp measures pages, not password hashing.
        self.client.cookies.update(random.choice(sessions))
        self.pages = ["/", "/study/", "/vault/", "/progress/", "/study/quizzes/", "/study/decks/"]
        gevent.sleep(random.uniform(0, RAMP_USERS / Browser.rate))  # not all in the same instant
        self.last_start = time.monotonic()

    @task
    def browse(self) -> None:
        self.last_start = time.monotonic()
        self.client.get(random.choice(self.pages), name="ramp")


# --- The run ----------------------------------------------------------------------------------


def run_class(app: App) -> None:
    environment = Environment(user_classes=[Student], host=app.url, events=events)
    runner = environment.create_local_runner()
    runner.start(STUDENTS, spawn_rate=SPAWN_RATE)
    gevent.sleep(SECONDS)
    # The last answers may still be streaming: wait for them (at most a minute) before leaving.
    deadline = time.monotonic() + 60
    while any(q.ended == "" for _, _, q in results.questions) and time.monotonic() < deadline:
        gevent.sleep(0.5)
    runner.quit()
    runner.greenlet.join()


def run_ramp(app: App) -> list[tuple[float, float, float, int]]:
    """(target pages/s, achieved pages/s, p95 ms, errors) per stage, up to the first over 500 ms."""
    environment = Environment(user_classes=[Browser], host=app.url, events=events)
    runner = environment.create_local_runner()
    results.recording = False
    runner.start(RAMP_USERS, spawn_rate=RAMP_USERS)
    gevent.sleep(RAMP_USERS / RAMP_START + 3)  # everyone started and paced
    stages = []
    rate = RAMP_START
    for _ in range(RAMP_STAGES):
        Browser.rate = rate
        gevent.sleep(2)  # the users take up the new pace
        results.times.pop("ramp", None)
        results.errors.pop("ramp", None)
        results.recording = True
        gevent.sleep(RAMP_SECONDS)
        results.recording = False
        times, errors = results.times.get("ramp", []), results.errors.get("ramp", 0)
        stages.append((rate, len(times) / RAMP_SECONDS, percentile(times, 0.95), errors))
        if stages[-1][2] > RAMP_LIMIT_MS:
            break
        rate *= RAMP_STEP
    runner.quit()
    runner.greenlet.join()
    results.times.pop("ramp", None)
    return stages


def answers_in_database(app: App, students: list[tuple[str, str]]) -> dict[int, str]:
    """answer id -> its status as the API shows it afterwards, for every student's thread."""
    statuses = {}
    threads = {thread for _, thread, _ in results.questions}
    for username, password in students:
        session = requests.Session()
        token = session.post(
            app.url + "/api/v1/auth/token",
            json={"username": username, "password": password},
            timeout=30,
        ).json()["token"]
        session.headers["Authorization"] = f"Bearer {token}"
        for thread in session.get(app.url + "/api/v1/chat/sessions", timeout=30).json():
            if thread["id"] in threads:
                detail = session.get(f"{app.url}/api/v1/chat/sessions/{thread['id']}").json()
                for message in detail["messages"]:
                    if message["role"] == "assistant":
                        statuses[message["id"]] = message["status"]
    return statuses


def report(app: App, stages, in_database: dict[int, str]) -> None:
    pages = {
        name: times
        for name, times in results.times.items()
        if not name.startswith("API") and name not in ("login form", "log in")
    }
    every_page = [t for times in pages.values() for t in times]
    print(
        f"### Classroom: {STUDENTS} students for {SECONDS:.0f} s, a page every 1–3 s, "
        f"{QUESTIONS} questions each, a quiz and a deck (fake model at "
        f"{1 / MODEL_DELAY:.0f} tokens/s, {WEB_PROCESSES} web processes, {CHAT_PROCESSES} chat "
        f"workers of {CHAT_CONCURRENCY} threads)"
    )
    print()
    print("| request | count | p50 | p95 | p99 | errors |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, times in sorted(results.times.items(), key=lambda row: (row[0] not in pages, row)):
        print(
            f"| {name} | {len(times)} | {percentile(times, 0.5):.0f} ms "
            f"| {percentile(times, 0.95):.0f} ms | {percentile(times, 0.99):.0f} ms "
            f"| {results.errors.get(name, 0)} |"
        )
    print(
        f"| **every page** | {len(every_page)} | {percentile(every_page, 0.5):.0f} ms "
        f"| **{percentile(every_page, 0.95):.0f} ms** | {percentile(every_page, 0.99):.0f} ms "
        f"| {sum(results.errors.get(name, 0) for name in pages)} |"
    )
    print()

    calls = app.answer_call_times()
    firsts = [
        (q.first - calls[q.text]) * 1000
        for _, _, q in results.questions
        if q.first is not None and q.text in calls
    ]
    asked = len(results.questions)
    done_on_socket = sum(q.ended == "done" for _, _, q in results.questions)
    not_done = asked - done_on_socket - sum(q.ended == "" for _, _, q in results.questions)
    lost = [q for _, _, q in results.questions if q.ended == ""]
    lost_saved = sum(in_database.get(q.answer_id) == "done" for q in lost if q.answer_id)
    study = ", ".join(f"{count} {key}" for key, count in sorted(results.study.items())) or "none"
    locked = app.count_in_logs("database is locked")
    dropped_frames = app.count_in_logs("over capacity")  # channels_redis dropped pushes
    print("| measure | result | target |")
    print("| --- | --- | --- |")
    print(f"| page p95 | {percentile(every_page, 0.95):.0f} ms | {TARGETS['page p95']} |")
    print(
        f"| sockets dropped | {len(results.dropped)} of {results.sockets} "
        f"| {TARGETS['sockets dropped']} |"
    )
    print(
        f"| answers lost (asked, the final answer never on the socket) | {len(lost)} of {asked} "
        f"({done_on_socket} done on the socket, {not_done} failed or stopped; of the lost, "
        f"{lost_saved} done in the database) | {TARGETS['answers lost']} |"
    )
    print(
        f"| first fragment after the model's first token, p50 / p95 "
        f"| {percentile(firsts, 0.5):.0f} ms / {percentile(firsts, 0.95):.0f} ms "
        f"| p95 {TARGETS['first fragment p95']} |"
    )
    print(f"| study items | {study} | all ready |")
    print(f'| "database is locked" in the logs | {locked} | {TARGETS["database is locked"]} |')
    print(f"| pushes dropped by a full channel (channel layer) | {dropped_frames} | 0 |")
    crossed = next((stage for stage in stages if stage[2] > RAMP_LIMIT_MS), None)
    if crossed:
        line = f"{crossed[1]:.0f} pages/s (asked for {crossed[0]:.0f})"
    else:
        line = f"not crossed up to {stages[-1][1]:.0f} pages/s" if stages else "not run"
    print(f"| page rate at which p95 crosses {RAMP_LIMIT_MS} ms | {line} | |")
    print()
    if stages:
        print(f"Ramp ({RAMP_USERS} logged-in users, pages only, {RAMP_SECONDS:.0f} s a stage):")
        print()
        print("| pages/s asked | pages/s served | p95 | errors |")
        print("| --- | --- | --- | --- |")
        for target, achieved, p95, errors in stages:
            print(f"| {target:.0f} | {achieved:.1f} | {p95:.0f} ms | {errors} |")
        print()
    for line in results.dropped[:5]:
        print(f"- dropped: {line}")


def main() -> None:
    app = App()
    try:
        app.start()
        students = seed(app)
        credentials.extend(students)
        run_class(app)
        in_database = answers_in_database(app, students)
        stages = run_ramp(app) if RAMP_STAGES else []
        report(app, stages, in_database)
    finally:
        app.stop()
        if os.environ.get("CLASSROOM_KEEP"):
            print(f"Logs kept in {app.logs}")
        else:
            shutil.rmtree(app.scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
