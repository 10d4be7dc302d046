"""A classroom under load, logging in as a class does: 30 students (Locust users, headless) log
in within 5 s, half by password through the login form and half by the address of their login
card, then the lesson: each keeps a chat page's websocket open, opens a page every 1–3 s, asks 3
questions over the socket, generates a quiz and a deck through the API and takes the quiz their
teacher handed out; then a ramp raises the page request rate until page p95 crosses 500 ms.
CLASSROOM_SCHOOL=1 plays a school instead: three classes of 30, a teacher and a handed-out quiz
each, logging in within 10 s, on SQLite and then on a throwaway PostgreSQL (tests/postgres.py).

The parts are the real ones, each its own process as `make run` starts them, on a throwaway
DATA_DIR: Redis, daphne, the jobs worker, the chat workers, and a fake Ollama *server* streaming
at 20 tokens/s (bench/model_server.py). Teachers, students, a few class documents (uploaded and
ingested) and the class quizzes are made through the API. The load generator is a process of
its own (bench/classroom_load.py); the CPU each part used during the lesson is printed, the load
generator's apart. Sizes: see bench/README.md.
"""

import json
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import psutil
import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import postgres  # noqa: E402

SCHOOL = os.environ.get("CLASSROOM_SCHOOL", "") not in ("", "0")
CLASSES = 3 if SCHOOL else 1  # one teacher and one handed-out quiz each
STUDENTS = int(os.environ.get("CLASSROOM_STUDENTS", "30"))  # a class
LOGIN_SECONDS = float(os.environ.get("CLASSROOM_LOGIN_SECONDS", "10" if SCHOOL else "5"))
SECONDS = float(os.environ.get("CLASSROOM_SECONDS", "90"))  # the lesson
QUESTIONS = int(os.environ.get("CLASSROOM_QUESTIONS", "3"))  # per student
MODEL_DELAY = float(os.environ.get("CLASSROOM_MODEL_DELAY", "0.05"))  # 20 tokens/s
CHAT_PROCESSES = int(os.environ.get("CHAT_PROCESSES", "2"))  # as `make run`
CHAT_CONCURRENCY = int(os.environ.get("CHAT_CONCURRENCY", "16"))
# daphnes on the one port: as `make run`, one per core (cognivault_site/settings.py)
WEB_PROCESSES = int(os.environ.get("WEB_PROCESSES") or len(os.sched_getaffinity(0)))
DATABASES = os.environ.get("BENCH_DATABASE", "sqlite,postgres" if SCHOOL else "sqlite").split(",")
# Each a fresh app; a noisy machine's figures move from run to run, so the spread is printed.
RUNS = int(os.environ.get("CLASSROOM_RUNS", "3"))
RAMP = {
    "start": float(os.environ.get("CLASSROOM_RAMP_START", "10")),  # pages/s
    "step": float(os.environ.get("CLASSROOM_RAMP_STEP", "1.5")),  # times the last rate
    "stages": int(os.environ.get("CLASSROOM_RAMP_STAGES", "0" if SCHOOL else "6")),
    "seconds": float(os.environ.get("CLASSROOM_RAMP_SECONDS", "10")),  # measured, per stage
    "users": int(os.environ.get("CLASSROOM_RAMP_USERS", "60")),
    "limit_ms": 500,
}
TARGETS = {
    "page p95": "≤ 500 ms",
    "badge login p95": "≤ 300 ms",
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
TEACHER_PASSWORD = "teacher-bench-2026"
# Requests that are not pages: logging in (its own figures) and the API.
NOT_PAGES = ("login form", "log in", "card page", "card log in")


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
        except (OSError, requests.RequestException, ValueError, KeyError, IndexError):
            pass
        time.sleep(0.3)
    raise TimeoutError(f"{what} did not come up")


def cpu_seconds(process: psutil.Process) -> float:
    """CPU a process and all its children used so far (the live ones, and those it reaped)."""
    try:
        times = process.cpu_times()
        own = times.user + times.system + times.children_user + times.children_system
        return own + sum(cpu_seconds(child) for child in process.children())
    except psutil.NoSuchProcess:
        return 0.0


# --- The app ----------------------------------------------------------------------------------


class App:
    """Redis, the fake model server, daphne and the workers on a throwaway DATA_DIR; on
    PostgreSQL, a throwaway cluster too."""

    def __init__(self, database: str) -> None:
        self.scratch = Path(tempfile.mkdtemp(prefix="bench-classroom-"))
        self.logs = self.scratch / "logs"
        self.logs.mkdir()
        self.answer_calls = self.scratch / "answer-calls.tsv"
        self.redis_port, self.web_port, self.model_port = free_port(), free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.web_port}"
        self.cluster = postgres.Cluster().start() if database == "postgres" else None
        self.env = {
            **os.environ,
            "DATA_DIR": str(self.scratch / "data"),
            "HOST": "127.0.0.1",
            "PORT": str(self.web_port),
            "WEB_PROCESSES": str(WEB_PROCESSES),
            "REDIS_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            "OLLAMA_HOST": f"http://127.0.0.1:{self.model_port}",
            "LLM_BACKEND": "ollama",
            "EMBEDDING_BACKEND": "ollama",
            "OLLAMA_RETRIES": "0",
            "LOG_LEVEL": "WARNING",
            "DJANGO_SETTINGS_MODULE": "cognivault_site.settings",
            "DJANGO_SUPERUSER_PASSWORD": TEACHER_PASSWORD,
            "BENCH_ANSWER_CALLS": str(self.answer_calls),
            # A class shares one address's limits here; the bench measures speed, not limits.
            "RATE_LIMIT_GENERATION": "1000/m",
            "RATE_LIMIT_BADGES": "10000/m",
        }
        if self.cluster:
            self.env["DATABASE_URL"] = self.cluster.create_database("bench")
        self.processes: dict[str, subprocess.Popen] = {}

    def spawn(self, name: str, *args) -> None:
        with open(self.logs / f"{name}.log", "w") as out:
            self.processes[name] = subprocess.Popen(
                [str(arg) for arg in args],
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )

    def manage(self, *args: str, **env: str) -> None:
        subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env | env,
            check=True,
            capture_output=True,
        )

    def start(self) -> None:
        redis = ["--port", self.redis_port, "--bind", "127.0.0.1", "--save", "", "--appendonly"]
        self.spawn("redis", shutil.which("redis-server"), *redis, "no", "--dir", self.scratch)
        model = ["--delay", MODEL_DELAY, "--embedding", "1,0,0"]
        fake = [sys.executable, "-m", "apps.llm.tests.fake_ollama", self.model_port, *model]
        self.spawn("model", *fake, "--script", "bench.model_server:script")
        self.manage("migrate", "--noinput")
        for teacher in teachers():
            email = f"{teacher}@example.org"
            self.manage(
                "createsuperuser", "--noinput", "--email", email, DJANGO_SUPERUSER_USERNAME=teacher
            )
        serve = [sys.executable, "-m", "cognivault_site.serve", "-b", "127.0.0.1"]
        self.spawn("web", *serve, "-p", self.web_port, "cognivault_site.asgi:application")
        celery = [Path(sys.executable).parent / "celery", "-A", "cognivault_site", "worker"]
        celery.append("--loglevel=WARNING")
        self.spawn("jobs worker", *celery, "-Q", "celery", "--concurrency=2", "-n", "jobs@%h")
        for number in range(CHAT_PROCESSES):
            threads = ["--pool=threads", f"--concurrency={CHAT_CONCURRENCY}"]
            name = ["-n", f"chat-{number}@%h"]
            self.spawn(f"chat worker {number}", *celery, "-Q", "chat,study", *threads, *name)
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

    def parts(self) -> dict[str, psutil.Process]:
        """The app's processes by name, for their CPU (PostgreSQL's server and its backends)."""
        parts = {name: psutil.Process(process.pid) for name, process in self.processes.items()}
        if self.cluster:
            pid = (self.cluster.root / "data" / "postmaster.pid").read_text().split()[0]
            parts["PostgreSQL"] = psutil.Process(int(pid))
        return parts

    def stop(self) -> None:
        for process in reversed(self.processes.values()):
            process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        if self.cluster:
            self.cluster.stop()

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


def teachers() -> list[str]:
    return [f"teacher{number + 1}" if SCHOOL else "teacher" for number in range(CLASSES)]


def teacher_session(app: App, username: str) -> requests.Session:
    session = requests.Session()
    token = session.post(
        app.url + "/api/v1/auth/token",
        json={"username": username, "password": TEACHER_PASSWORD},
        timeout=60,
    ).json()["token"]
    session.headers["Authorization"] = f"Bearer {token}"
    return session


def seed(app: App) -> list[dict]:
    """The school: each teacher makes their class and hands out a quiz; the first uploads and
    ingests the class documents. Returns each student's plan: how they log in, their quiz."""
    sessions = [teacher_session(app, name) for name in teachers()]
    made = []
    for number, teacher in enumerate(sessions):
        names = [
            f"class{number + 1}student{n:02d}" if SCHOOL else f"student{n:02d}"
            for n in range(STUDENTS)
        ]
        response = teacher.post(app.url + "/api/v1/accounts/students", json={"usernames": names})
        response.raise_for_status()
        made.append(response.json())
    ingest(app, sessions[0])
    quizzes = [class_quiz(app, teacher) for teacher in sessions]
    # A worker stores the passwords of a class (docs/classroom.md#creating-a-class).
    wait_for(
        lambda: all(
            batch["status"] == "ready"
            for batch in sessions[0].get(f"{app.url}/api/v1/accounts/batches").json()
        ),
        "the students' passwords",
    )
    return [
        {
            "username": row["username"],
            "password": row["password"],
            "badge_path": "{0.path}?{0.query}".format(urlsplit(row["badge_url"])),
            # Half the class by password, half by card.
            "method": "badge" if n % 2 else "password",
            "quiz_id": quiz,
        }
        for rows, quiz in zip(made, quizzes, strict=True)
        for n, row in enumerate(rows)
    ]


def ingest(app: App, teacher: requests.Session) -> None:
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


def class_quiz(app: App, teacher: requests.Session) -> int:
    """A quiz the teacher generates for the class (handed out at once), once it is ready."""
    body = {"num_questions": 5, "difficulty": "beginner", "for_class": True}
    response = teacher.post(app.url + "/api/v1/study/quizzes", json=body, timeout=60)
    response.raise_for_status()
    quiz = response.json()["id"]
    wait_for(
        lambda: teacher.get(f"{app.url}/api/v1/study/quizzes/{quiz}").json()["status"] == "ready",
        "a class quiz",
    )
    return quiz


# --- The run ----------------------------------------------------------------------------------


def load(app: App, mode: str, plan: dict) -> tuple[dict, float]:
    """bench/classroom_load.py in a process of its own; its results, and its wall time."""
    plan_file, out_file = app.scratch / f"{mode}-plan.json", app.scratch / f"{mode}-results.json"
    plan_file.write_text(json.dumps({"url": app.url, **plan}))
    script = ROOT / "bench" / "classroom_load.py"
    began = time.monotonic()
    subprocess.run([sys.executable, script, mode, plan_file, out_file], cwd=ROOT, check=True)
    return json.loads(out_file.read_text()), time.monotonic() - began


def run_class(app: App, students: list[dict]) -> tuple[dict, dict[str, float], float]:
    """The login rush and the lesson; the CPU each part of the app used meanwhile."""
    parts = app.parts()
    before = {name: cpu_seconds(process) for name, process in parts.items()}
    plan = {
        "students": students,
        "login_seconds": LOGIN_SECONDS,
        "seconds": SECONDS,
        "questions": QUESTIONS,
    }
    results, wall = load(app, "class", plan)
    cpu = {name: cpu_seconds(process) - before[name] for name, process in parts.items()}
    cpu["load generator (left out)"] = results["cpu_seconds"]
    return results, cpu, wall


def bench(database: str, run: int) -> dict[str, float]:
    """One run on a fresh app: its whole report printed, its headline figures returned."""
    app = App(database)
    try:
        began = time.monotonic()
        app.start()
        students = seed(app)
        print(f"Run {run} of {RUNS} on {database}: set up in {time.monotonic() - began:.0f} s.")
        print()
        results, cpu, wall = run_class(app, students)
        stages = []
        if RAMP["stages"]:
            stages = load(app, "ramp", RAMP | {"sessions": results["sessions"]})[0]["stages"]
        report(app, database, results, stages, cpu, wall)
        return headline(app, results, stages)
    finally:
        app.stop()
        if os.environ.get("CLASSROOM_KEEP"):
            print(f"Logs kept in {app.logs}")
        else:
            shutil.rmtree(app.scratch, ignore_errors=True)


# --- The report -------------------------------------------------------------------------------


def page_times(results: dict, key: str = "times") -> dict[str, list[float]]:
    """The pages' times by request name (of the whole run, or of the login rush: "rush")."""
    return {
        name: values
        for name, values in results[key].items()
        if not name.startswith("API") and name not in NOT_PAGES
    }


def report(app: App, database: str, results: dict, stages, cpu: dict, wall: float) -> None:
    times, errors = results["times"], results["errors"]
    pages = page_times(results)
    every_page = [value for values in pages.values() for value in values]
    count = CLASSES * STUDENTS
    print(
        f"### Classroom on {database}: {count} students ({CLASSES} class{'es' if SCHOOL else ''}) "
        f"logging in within {LOGIN_SECONDS:.0f} s, then {SECONDS:.0f} s of lesson, a page every "
        f"1–3 s, {QUESTIONS} questions each, a quiz and a deck, the class quiz (fake model at "
        f"{1 / MODEL_DELAY:.0f} tokens/s, {WEB_PROCESSES} web processes, {CHAT_PROCESSES} chat "
        f"workers of {CHAT_CONCURRENCY} threads)"
    )
    print()
    print("| request | count | p50 | p95 | p99 | errors |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, values in sorted(times.items(), key=lambda row: (row[0] not in pages, row)):
        print(
            f"| {name} | {len(values)} | {percentile(values, 0.5):.0f} ms "
            f"| {percentile(values, 0.95):.0f} ms | {percentile(values, 0.99):.0f} ms "
            f"| {errors.get(name, 0)} |"
        )
    print(
        f"| **every page** | {len(every_page)} | {percentile(every_page, 0.5):.0f} ms "
        f"| **{percentile(every_page, 0.95):.0f} ms** | {percentile(every_page, 0.99):.0f} ms "
        f"| {sum(errors.get(name, 0) for name in pages)} |"
    )
    print()
    print("| measure | result | target |")
    print("| --- | --- | --- |")
    for method in ("password", "badge"):
        print(login_row(results, method))
    p95, target = percentile(every_page, 0.95), TARGETS["page p95"]
    print(f"| page p95 (the first pages after login too) | {p95:.0f} ms | {target} |")
    rush = [value for values in page_times(results, "rush").values() for value in values]
    print(
        f"| of which while the class logs in (the first {LOGIN_SECONDS:.0f} s), p95 "
        f"| {percentile(rush, 0.95):.0f} ms ({len(rush)} pages) | |"
    )
    for row in lesson_rows(app, results):
        print(row)
    print(ramp_row(stages))
    print()
    print_ramp(stages)
    print_cpu(cpu, wall)
    for line in results["dropped"][:5]:
        print(f"- dropped: {line}")
    for line in results["refused"][:5]:
        print(f"- refused: {line}")


def login_row(results: dict, method: str) -> str:
    values = results["logins"].get(method, [])
    failed = results["login_failures"].get(method, 0)
    target = TARGETS["badge login p95"] if method == "badge" else ""
    what = {"password": "the login form and its POST", "badge": "the card's page and its button"}
    return (
        f"| login by {method} ({what[method]}), p50 / p95 | {percentile(values, 0.5):.0f} ms / "
        f"{percentile(values, 0.95):.0f} ms ({len(values)} logged in, {failed} failed) | {target} |"
    )


def first_fragments(app: App, results: dict) -> list[float]:
    """ms from the model's first token of each answer to its first words on the socket."""
    calls = app.answer_call_times()
    return [
        (q["first"] - calls[q["text"]]) * 1000
        for q in results["questions"]
        if q["first"] is not None and q["text"] in calls
    ]


def lost_answers(results: dict) -> list[dict]:
    """The questions whose final answer never reached the socket."""
    return [q for q in results["questions"] if q["ended"] == ""]


def lesson_rows(app: App, results: dict) -> list[str]:
    questions = results["questions"]
    firsts = first_fragments(app, results)
    saved = {int(answer): status for answer, status in results["saved"].items()}
    done_on_socket = sum(q["ended"] == "done" for q in questions)
    lost = lost_answers(results)
    not_done = len(questions) - done_on_socket - len(lost)
    lost_saved = sum(saved.get(q["answer_id"]) == "done" for q in lost if q["answer_id"])
    study = ", ".join(f"{n} {key}" for key, n in sorted(results["study"].items())) or "none"
    attempts = results["attempts"]
    handed_in = attempts.get("201", 0)
    others = ", ".join(
        f"{n} × {status}" for status, n in sorted(attempts.items()) if status != "201"
    )
    return [
        f"| sockets dropped | {len(results['dropped'])} of {results['sockets']} "
        f"| {TARGETS['sockets dropped']} |",
        f"| socket handshakes refused or reset (tried again, as the page does) "
        f"| {len(results['refused'])} | |",
        f"| answers lost (asked, the final answer never on the socket) | {len(lost)} of "
        f"{len(questions)} ({done_on_socket} done on the socket, {not_done} failed or stopped; "
        f"of the lost, {lost_saved} done in the database) | {TARGETS['answers lost']} |",
        f"| first fragment after the model's first token, p50 / p95 "
        f"| {percentile(firsts, 0.5):.0f} ms / {percentile(firsts, 0.95):.0f} ms "
        f"| p95 {TARGETS['first fragment p95']} |",
        f"| study items | {study} | all ready |",
        f"| class quiz attempts handed in | {handed_in} of {sum(attempts.values())}"
        f"{f' ({others})' if others else ''} | all |",
        f'| "database is locked" in the logs | {app.count_in_logs("database is locked")} '
        f"| {TARGETS['database is locked']} |",
        # Redis cuts off a subscriber whose unread pushes pass its output buffer's limit.
        f"| web processes cut off by Redis for falling behind on pushes "
        f"| {app.count_in_logs('output buffer limits')} | 0 |",
    ]


def crossing(stages: list) -> tuple | None:
    """The ramp's first stage whose page p95 passed the limit, if any."""
    return next((stage for stage in stages if stage[2] > RAMP["limit_ms"]), None)


def ramp_row(stages: list) -> str:
    limit = RAMP["limit_ms"]
    crossed = crossing(stages)
    if crossed:
        line = f"{crossed[1]:.0f} pages/s (asked for {crossed[0]:.0f})"
    else:
        line = f"not crossed up to {stages[-1][1]:.0f} pages/s" if stages else "not run"
    return f"| page rate at which p95 crosses {limit} ms | {line} | |"


def headline(app: App, results: dict, stages: list) -> dict[str, float]:
    """The figures the targets are about, for the spread over the runs."""
    every_page = [value for values in page_times(results).values() for value in values]
    rush = [value for values in page_times(results, "rush").values() for value in values]
    figures = {
        "page p95 (ms)": percentile(every_page, 0.95),
        "of which while the class logs in, p95 (ms)": percentile(rush, 0.95),
        "login by badge, p95 (ms)": percentile(results["logins"].get("badge", []), 0.95),
        "login by password, p95 (ms)": percentile(results["logins"].get("password", []), 0.95),
        "first fragment p95 (ms)": percentile(first_fragments(app, results), 0.95),
        "answers lost": len(lost_answers(results)),
        "sockets dropped": len(results["dropped"]),
        '"database is locked"': app.count_in_logs("database is locked"),
    }
    if stages:
        crossed = crossing(stages)
        # Not crossed: the highest rate served, as "up to" in the run's own report.
        rate = crossed[1] if crossed else stages[-1][1]
        figures["pages/s where p95 crosses 500 ms (or the most served)"] = rate
    return figures


SPREAD_TARGETS = {
    "page p95 (ms)": TARGETS["page p95"],
    "login by badge, p95 (ms)": TARGETS["badge login p95"],
    "first fragment p95 (ms)": TARGETS["first fragment p95"],
    "answers lost": TARGETS["answers lost"],
    "sockets dropped": TARGETS["sockets dropped"],
    '"database is locked"': TARGETS["database is locked"],
}


def print_spread(database: str, runs: list[dict[str, float]]) -> None:
    """Each headline figure of every run, and its lowest and highest."""
    print(f"### Classroom on {database}: the spread over {len(runs)} runs")
    print()
    numbers = " | ".join(f"run {number}" for number in range(1, len(runs) + 1))
    print(f"| measure | {numbers} | lowest–highest | target |")
    print("| --- |" + " --- |" * (len(runs) + 2))
    for measure in runs[0]:
        values = [run[measure] for run in runs]
        known = [value for value in values if not math.isnan(value)]  # nan: none measured
        each = " | ".join("–" if math.isnan(value) else f"{value:.0f}" for value in values)
        spread = f"{min(known):.0f}–{max(known):.0f}" if known else "–"
        print(f"| {measure} | {each} | {spread} | {SPREAD_TARGETS.get(measure, '')} |")
    print()


def print_ramp(stages: list) -> None:
    if not stages:
        return
    print(f"Ramp ({RAMP['users']} logged-in users, pages only, {RAMP['seconds']:.0f} s a stage):")
    print()
    print("| pages/s asked | pages/s served | p95 | errors |")
    print("| --- | --- | --- | --- |")
    for target, achieved, p95, errors in stages:
        print(f"| {target:.0f} | {achieved:.1f} | {p95:.0f} ms | {errors} |")
    print()


def print_cpu(cpu: dict[str, float], wall: float) -> None:
    cores = psutil.cpu_count()
    print(f"CPU during the login rush and the lesson ({wall:.0f} s, {cores} cores):")
    print()
    print("| process | CPU seconds | share of the machine |")
    print("| --- | ---: | ---: |")
    for name, seconds in sorted(cpu.items(), key=lambda row: -row[1]):
        print(f"| {name} | {seconds:.1f} | {seconds / (wall * cores):.0%} |")
    print()


def machine() -> str:
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    return f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load average {load}"


def main() -> None:
    print(f"Started {machine()}.")
    print()
    for database in DATABASES:
        runs = [bench(database.strip(), run) for run in range(1, RUNS + 1)]
        if RUNS > 1:
            print_spread(database.strip(), runs)
    print(f"Finished {machine()}.")


if __name__ == "__main__":
    main()
