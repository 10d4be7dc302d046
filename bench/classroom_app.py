"""The settings and the real processes of the classroom benchmarks (bench_classroom.py,
bench_class_creation.py): Redis, the fake model server, daphne and the workers on a throwaway
DATA_DIR, each its own process as `make run` starts them; on PostgreSQL a throwaway cluster too.
The sizes are read from the environment (bench/README.md).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests import postgres  # noqa: E402
from tests.helpers.services import free_port  # noqa: E402

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
# The school's admin (the first account, a superuser): adds the teachers through the API.
ADMIN = ("admin", "admin-bench-2026")
# Requests that are not pages: logging in (its own figures) and the API.
NOT_PAGES = ("login form", "log in", "card page", "card log in")


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
            "DJANGO_SUPERUSER_USERNAME": ADMIN[0],
            "DJANGO_SUPERUSER_PASSWORD": ADMIN[1],
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
        self.manage("createsuperuser", "--noinput", "--email", "admin@example.org")
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


def signed_in(app: App, username: str, password: str) -> requests.Session:
    """An API session of `username` (a bearer token)."""
    session = requests.Session()
    token = session.post(
        app.url + "/api/v1/auth/token",
        json={"username": username, "password": password},
        timeout=60,
    ).json()["token"]
    session.headers["Authorization"] = f"Bearer {token}"
    return session
