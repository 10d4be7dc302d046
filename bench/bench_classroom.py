"""A classroom under load, logging in as a class does: 30 students (Locust users, headless) log
in within 5 s, half by password through the login form and half by the address of their login
card, then the lesson: each keeps a chat page's websocket open, opens a page every 1–3 s, asks 3
questions over the socket, generates a quiz and a deck through the API and takes the quiz their
teacher handed out; then a ramp raises the page request rate until page p95 crosses 500 ms.
CLASSROOM_SCHOOL=1 plays a school instead: three teachers, each with their own class of 30 and
their own quiz handed out to it, logging in within 10 s, on SQLite and then on a throwaway
PostgreSQL (tests/postgres.py).

The parts are the real ones, each its own process as `make run` starts them, on a throwaway
DATA_DIR: Redis, daphne, the jobs worker, the chat workers, and a fake Ollama *server* streaming
at 20 tokens/s (bench/model_server.py). The admin adds the teachers, each teacher makes a class
with its students and hands out a quiz, and a few class documents are uploaded and ingested,
all through the API. The load generator is a process of its own (bench/classroom_load.py); the
CPU each part used during the lesson is printed, the load generator's apart. Sizes: see
bench/README.md.
"""

import json
import os
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.classroom_app import (  # noqa: E402
    ADMIN,
    DATABASES,
    DOCUMENTS,
    LOGIN_SECONDS,
    QUESTIONS,
    RAMP,
    ROOT,
    RUNS,
    SCHOOL,
    SECONDS,
    STUDENTS,
    App,
    cpu_seconds,
    signed_in,
    teachers,
    wait_for,
)
from bench.classroom_report import headline, print_spread, report  # noqa: E402


def seed(app: App) -> list[dict]:
    """The school, through the API: the admin adds the teachers, each makes their class with
    its students and hands out their own quiz to it; the first uploads and ingests the class
    documents. Returns each student's plan: how they log in, their teacher's quiz."""
    admin = signed_in(app, *ADMIN)
    response = admin.post(
        app.url + "/api/v1/accounts/teachers", json={"usernames": teachers()}, timeout=60
    )
    response.raise_for_status()
    sessions = [signed_in(app, row["username"], row["password"]) for row in response.json()]
    classes = [make_class(app, teacher, number) for number, teacher in enumerate(sessions)]
    ingest(app, sessions[0])
    quizzes = [
        class_quiz(app, teacher, class_id)
        for teacher, (class_id, _) in zip(sessions, classes, strict=True)
    ]
    # A worker stores the passwords of a class (docs/classroom.md#creating-a-class); the admin
    # reaches every class's batches.
    wait_for(
        lambda: all(
            batch["status"] == "ready"
            for batch in admin.get(f"{app.url}/api/v1/accounts/batches").json()
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
        for (_, rows), quiz in zip(classes, quizzes, strict=True)
        for n, row in enumerate(rows)
    ]


def make_class(app: App, teacher: requests.Session, number: int) -> tuple[int, list[dict]]:
    """A teacher's class and its students: its id, and each student's password and card."""
    response = teacher.post(
        app.url + "/api/v1/classes", json={"name": f"Class {number + 1}"}, timeout=60
    )
    response.raise_for_status()
    class_id = response.json()["id"]
    names = [
        f"class{number + 1}student{n:02d}" if SCHOOL else f"student{n:02d}" for n in range(STUDENTS)
    ]
    response = teacher.post(
        f"{app.url}/api/v1/classes/{class_id}/students", json={"usernames": names}, timeout=60
    )
    response.raise_for_status()
    return class_id, response.json()


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


def class_quiz(app: App, teacher: requests.Session, class_id: int) -> int:
    """A quiz the teacher generates for their class (handed out at once), once it is ready."""
    body = {"num_questions": 5, "difficulty": "beginner", "for_class": True, "class_id": class_id}
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
