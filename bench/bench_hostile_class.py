"""The well-behaved students' figures with and without three attackers (see
tests/helpers/hostile_class.py for what each does): page p95 and answer latency while the class
browses, takes the handed-out quiz and asks a question each, alone and while 3 students loop
blank scans, ask in ten chats at once, send 110-second recordings to transcribe, re-ingest and
send bodies over the upload limit.
Target: with the attackers within 1.25× of without (not asserted; docs/benchmarks.md).

Rounds alternate, one alone and one with the attackers, so the shared machine's changing load
falls on both alike; the attackers sign in and open their chats before the first round (their
password hashes are not the attack), and after each of their rounds the answers they started
are left a few seconds to finish, and their last recordings to be transcribed, before the class
is alone again.

The parts are the real ones, as `make run` starts them (`app_running` of
tests/helpers/running_app.py): a Redis server, daphne, the jobs worker, the chat workers (the
tests' 4 threads and CHAT_CONCURRENCY more), and a fake Ollama server on loopback.
Sizes: HOSTILE_STUDENTS (27) students a round, HOSTILE_ROUNDS (3) rounds of each kind,
HOSTILE_ATTACKERS (3), HOSTILE_MODEL_DELAY (0.05 s a word, 20 tokens/s).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from apps.llm.tests.fake_ollama import FakeOllama  # noqa: E402
from tests.helpers.hostile_class import (  # noqa: E402
    LIMITS,
    Attacker,
    arm,
    attack,
    learn,
    names,
    setup_code,
    summary,
    talk,
    transcribed,
)
from tests.helpers.running_app import app_running, worker_command  # noqa: E402
from tests.helpers.services import (  # noqa: E402
    celery_workers,
    free_port,
    redis_server,
    spawn,
    stop,
    wait_until,
)

STUDENTS = int(os.environ.get("HOSTILE_STUDENTS", "27"))
ROUNDS = int(os.environ.get("HOSTILE_ROUNDS", "3"))
ATTACKERS = int(os.environ.get("HOSTILE_ATTACKERS", "3"))
MODEL_DELAY = float(os.environ.get("HOSTILE_MODEL_DELAY", "0.05"))
CHAT_CONCURRENCY = int(os.environ.get("CHAT_CONCURRENCY", "16"))  # as `make run`
SETTLE_SECONDS = 5  # the attackers' last answers (two each, 40 words at 20 words/s) finish


def more_chat_threads(app) -> subprocess.Popen:
    """A chat worker of CHAT_CONCURRENCY threads beside the tests' small one, as `make run`
    has: the attackers' answers then take their share of the threads, not all of them."""
    port = free_port()  # only its name
    command = [
        f"--concurrency={CHAT_CONCURRENCY}" if str(arg).startswith("--concurrency") else arg
        for arg in worker_command("chat", port)
    ]
    worker = spawn(command, app.env, app.data_dir / "logs" / "chat-more.log")
    wait_until(
        lambda: any(
            name.startswith(f"chat-{port}@") for name in celery_workers(app.env["REDIS_URL"])
        ),
        timeout=90,
        what="the second chat worker",
    )
    return worker


def one_round(url: str, students: list[str], attackers: list[Attacker]) -> tuple[list, Counter]:
    """The students learning at once, with the attackers at it throughout."""
    done = threading.Event()
    with ThreadPoolExecutor(len(students) + len(attackers)) as pool:
        attacks = [pool.submit(attack, attacker, done, 0) for attacker in attackers]
        learned = list(pool.map(learn, [url] * len(students), students))
        done.set()
        seen = sum((future.result() for future in attacks), start=Counter())
    if attackers:
        time.sleep(SETTLE_SECONDS)
        for attacker in attackers:
            transcribed(attacker)
    return learned, seen


def figures(learned: list, seen: Counter) -> dict:
    lost = sum(one.answer.get("status") != "done" or one.attempt != 201 for one in learned)
    refused = sum(count for (_, status), count in seen.items() if status in (413, 429))
    voice = {
        "recordings taken": seen["voice", 202] + seen["voice", 200],
        "recordings refused": seen["voice", 429],
    }
    return summary(learned) | {"lost": lost, "attackers refused": refused} | voice


def alternating(url: str, quiet: list[str], busy: list[str], attackers: list[str]) -> tuple:
    """ROUNDS rounds alone and ROUNDS with the attackers, one of each in turn."""
    armed = [arm(url, name) for name in attackers]
    alone, attacked, seen = [], [], Counter()
    for number in range(ROUNDS):
        group = slice(number * STUDENTS, (number + 1) * STUDENTS)
        alone += one_round(url, quiet[group], [])[0]
        learned, refused = one_round(url, busy[group], armed)
        attacked += learned
        seen += refused
    return figures(alone, Counter()), figures(attacked, seen)


def main() -> None:
    scratch = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    quiet = names("quiet", STUDENTS * ROUNDS)
    busy = names("busy", STUDENTS * ROUNDS)
    attackers = names("attacker", ATTACKERS)
    os.environ |= LIMITS | {"LOG_LEVEL": "WARNING"}
    try:
        with redis_server(scratch) as redis_url, FakeOllama(talk) as model:
            model.delay = MODEL_DELAY
            setup = setup_code(quiet + busy, attackers)
            with app_running(redis_url, scratch / "data", model_url=model.url, setup=setup) as app:
                worker = more_chat_threads(app)
                try:
                    alone, attacked = alternating(app.url, quiet, busy, attackers)
                finally:
                    stop(worker)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"## Hostile class: {STUDENTS} students a round, {ROUNDS} rounds, {ATTACKERS} attackers")
    print()
    print("| figure | alone | with the attackers | ratio |")
    print("| --- | ---: | ---: | ---: |")
    for key in alone:
        ratio = f"{attacked[key] / alone[key]:.2f}×" if alone[key] else "–"
        print(f"| {key} | {alone[key]:.2f} | {attacked[key]:.2f} | {ratio} |")


if __name__ == "__main__":
    main()
