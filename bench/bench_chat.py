"""Chat answers through the chat worker: for 1 and 30 concurrent chats, an answer's time over the
model's own streaming time at the same concurrency (and over its time alone), and the first pushed
answer fragment after the model's first answer token.

The parts are the real ones, each its own process as `make run` starts them: a Redis server
(Celery broker and channel layer), daphne, the chat workers (`CHAT_PROCESSES` processes of
`CHAT_CONCURRENCY` threads, `-Q chat --pool=threads`) and a fake Ollama server on loopback
streaming at a fixed rate (bench/model_server.py, a process of its own as Ollama is); this
process holds the websockets (one thread each). So what is measured is the app: consumer, queue,
worker, agent loop, batching, rendering, the channel layer, the partial saves. Two paces: the
old bench's (10 ms a part, an 8-word answer: 0.17 s of model time, which mostly measures the
app's CPU per answer) and a model writing 20 tokens/s (the classroom bench's pace) a 58-word
answer. At that pace the chat workers' very first answers are measured apart, 30 at once: a
class asking as soon as the app has started.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.model_server import ANSWER, LONG_ANSWER  # noqa: E402
from bench.processes import answers  # noqa: E402
from tests.helpers.services import free_port, wait_until  # noqa: E402
from tests.wsclient import WebSocket  # noqa: E402

# (seconds a part, the model's answer); the first pace's first round is the workers' first answers
PACES = [(0.05, LONG_ANSWER), (0.01, ANSWER)]
ROUNDS = 3
CONCURRENCY = (1, 30)
CHAT_PROCESSES = int(os.environ.get("CHAT_PROCESSES", "2"))  # as `make run`
CHAT_CONCURRENCY = int(os.environ.get("CHAT_CONCURRENCY", "16"))


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


scratch = Path(tempfile.mkdtemp(prefix="bench-chat-"))
redis_port, web_port, model_port = free_port(), free_port(), free_port()
web_url = f"http://127.0.0.1:{web_port}"
model_url = f"http://127.0.0.1:{model_port}"
answer_calls = scratch / "answer-calls.tsv"  # the model server notes each answer call here
os.environ |= {
    "DATA_DIR": str(scratch / "data"),
    "HOST": "127.0.0.1",
    "PORT": str(web_port),
    "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
    "OLLAMA_HOST": model_url,
    "LLM_BACKEND": "ollama",
    "EMBEDDING_BACKEND": "ollama",
    "OLLAMA_RETRIES": "0",
    "LOG_LEVEL": "WARNING",
    "DJANGO_SETTINGS_MODULE": "cognivault_site.settings",
}

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from apps.accounts.models import User  # noqa: E402
from apps.chat.models import Thread  # noqa: E402
from apps.llm import gateway  # noqa: E402
from cognivault_site.celery import app as celery_app  # noqa: E402


def start_model(delay: float, answer: str) -> subprocess.Popen:
    """The fake model server at this pace, on the port the app was told."""
    server = subprocess.Popen(
        [sys.executable, "-m", "apps.llm.tests.fake_ollama", str(model_port)]
        + ["--delay", str(delay), "--embedding", "1,0,0"]
        + ["--script", "bench.model_server:script"],
        cwd=ROOT,
        env=os.environ
        | {"BENCH_ANSWER_CALLS": str(answer_calls)}
        | ({"BENCH_SHORT_ANSWER": "1"} if answer == ANSWER else {}),
        stdout=subprocess.DEVNULL,
    )
    wait_until(lambda: answers(model_url + "/api/tags"), timeout=90, what="the model server")
    return server


def answer_call(question: str) -> float:
    """When (epoch seconds) the model server was first asked for this question's answer."""
    for line in answer_calls.read_text().splitlines():
        when, _, asked = line.partition("\t")
        if asked == question:
            return float(when)
    raise LookupError(question)


def workers_up() -> bool:
    return len(celery_app.control.ping(timeout=1.0)) == CHAT_PROCESSES


def model_time() -> float:
    """The model's own streaming time for one answer: the same three calls, nothing else."""
    start = time.perf_counter()
    for kwargs in (
        {"think": True},
        {"tools": [{"type": "function", "function": {"name": "x"}}]},
        {},
    ):
        messages = [{"role": "user", "content": "Why?"}]
        if not kwargs:  # the answer call comes after the tool's result
            messages.append({"role": "tool", "content": "[]"})
        for _ in gateway.chat(messages, stream=True, **kwargs):
            pass
    return time.perf_counter() - start


def one_chat(cookie: str, thread_id: int, question: str, go: threading.Barrier):
    """(when the first answer fragment came, in epoch seconds; whole answer time)."""
    socket = WebSocket(web_url, f"/ws/chat/{thread_id}/", cookie)
    socket.receive()
    go.wait()
    sent = time.perf_counter()
    socket.send_json(json.dumps({"content": question}))
    first = None
    while True:
        frame = socket.receive(timeout=120)
        if first is None and 'id="answer-tokens-' in frame and 'hx-swap-oob="beforeend"' in frame:
            first = time.time()  # the model server's clock: the answer call's time is epoch
        if 'class="message assistant done" hx-swap-oob' in frame:
            total = time.perf_counter() - sent
            break
        if 'class="message assistant failed" hx-swap-oob' in frame:
            raise RuntimeError(frame)
    socket.close()
    return first, total


def run(chats) -> list[tuple[float, float]]:
    go = threading.Barrier(len(chats))
    with ThreadPoolExecutor(len(chats)) as pool:
        return list(pool.map(lambda chat: one_chat(*chat, go), chats))


def model_time_at(concurrent: int) -> float:
    """The model's own time for one answer while `concurrent` answers stream from it at once:
    the same calls from as many threads of this process, with no app in between. A model (and
    this fake one, whose server shares the machine with everything else) streams slower to 30
    at once than to one, and that is not the app's time."""
    times = []
    for _ in range(ROUNDS):
        with ThreadPoolExecutor(concurrent) as pool:
            times += pool.map(lambda _: model_time(), range(concurrent))
    return statistics.median(times)


def round_of(delay: float, concurrent: int, label: str) -> tuple[list[float], list[float]]:
    """`concurrent` new students asking at once: each one's first fragment after the model's
    first answer token, and answer time."""
    chats = []
    for index in range(concurrent):
        name = f"bench-{delay}-{label}-{index}"
        user = User.objects.create_user(name)
        thread = Thread.objects.create(owner=user).pk
        client = Client()
        client.force_login(user)
        cookie = f"sessionid={client.cookies['sessionid'].value}"
        chats.append((cookie, thread, f"What do mitochondria do, {name}?"))
    firsts, totals = [], []
    for (_, _, question), (first, total) in zip(chats, run(chats), strict=True):
        # The model's first answer token: one part's delay after the answer call.
        firsts.append(first - (answer_call(question) + delay))
        totals.append(total)
    return firsts, totals


def measure(delay: float, fresh_workers: bool) -> tuple[float, list]:
    alone = model_time_at(1)
    rows = []
    if fresh_workers:
        concurrent = max(CONCURRENCY)
        rows.append(
            (f"{concurrent}, the workers' first", model_time_at(concurrent))
            + round_of(delay, concurrent, "first")
        )
    for concurrent in CONCURRENCY:
        baseline = model_time_at(concurrent)
        firsts, totals = [], []
        for round_number in range(ROUNDS):
            first, total = round_of(delay, concurrent, f"{concurrent}-{round_number}")
            firsts += first
            totals += total
        rows.append((concurrent, baseline, firsts, totals))
    return alone, rows


def main() -> None:
    redis = subprocess.Popen(
        [shutil.which("redis-server"), "--port", str(redis_port), "--bind", "127.0.0.1"]
        + ["--save", "", "--appendonly", "no", "--dir", str(scratch)],
        stdout=subprocess.DEVNULL,
    )
    processes = []
    try:
        call_command("migrate", verbosity=0)
        daphne = [
            sys.executable,
            "-m",
            "cognivault_site.serve",
            "-b",
            "127.0.0.1",
            "-p",
            str(web_port),
        ]
        processes.append(
            subprocess.Popen(
                [*daphne, "cognivault_site.asgi:application"],
                cwd=ROOT,
                env=os.environ,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        wait_until(lambda: answers(web_url + "/api/v1/health"), timeout=90, what="daphne")
        for number in range(CHAT_PROCESSES):
            worker = [Path(sys.executable).parent / "celery", "-A", "cognivault_site", "worker"]
            processes.append(
                subprocess.Popen(
                    [*worker, "-Q", "chat", "--pool=threads", f"--concurrency={CHAT_CONCURRENCY}"]
                    + ["-n", f"chat-bench-{number}@%h", "--loglevel=WARNING"],
                    cwd=ROOT,
                    env=os.environ,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        wait_until(workers_up, timeout=90, what="the chat workers")
        results = []
        for number, (delay, answer) in enumerate(PACES):
            model = start_model(delay, answer)
            try:
                results.append((delay, answer, *measure(delay, fresh_workers=number == 0)))
            finally:
                model.terminate()
                model.wait(timeout=30)
    finally:
        for process in processes:
            process.terminate()
            process.wait(timeout=30)
        redis.terminate()
        redis.wait()
        shutil.rmtree(scratch, ignore_errors=True)

    print(
        f"### Chat answers through {CHAT_PROCESSES} chat worker process(es) of "
        f"{CHAT_CONCURRENCY} threads (fake model, 3 calls per answer)"
    )
    print()
    print(
        "| model pace | chats at once | model's own time at that concurrency (alone) "
        "| answer time / model's time at that concurrency, median | p95 "
        "| over the model's time alone, median "
        "| first fragment after the model's first token, median | p95 |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for delay, answer, alone, rows in results:
        for concurrent, baseline, firsts, totals in rows:
            ratios = [total / baseline for total in totals]
            print(
                f"| {delay * 1000:.0f} ms a part, {len(answer.split())}-word answer "
                f"| {concurrent} | {baseline * 1000:,.0f} ms ({alone * 1000:,.0f} ms) "
                f"| {statistics.median(ratios):.2f}× | {p95(ratios):.2f}× "
                f"| {statistics.median(totals) / alone:.2f}× "
                f"| {statistics.median(firsts) * 1000:.0f} ms | {p95(firsts) * 1000:.0f} ms |"
            )


if __name__ == "__main__":
    main()
