"""The memory of `make run` with a large vault: every process it starts (the web processes, the
jobs worker and its children, the chat workers, honcho, Redis), after each web process and each
chat worker has searched the index, with their RSS and PSS summed, and what of it is the index's
files. One copy of the index is in the page cache, mapped by every process that searches
(docs/retrieval.md#segments): its PSS in all stays near what one process has resident.

BENCH_RUN_CHUNKS chunks (default 200,000; 1,000,000 for a million passages) of five vectors each
(the chunk's and its four sentence windows', 384 dimensions as the default embedding model) are
written straight into the database; the index is built from them by the app's own code, in this
process, as a first search would. Then the processes start from the Procfile through honcho, as
`make run` starts them, and each is made to search: the web processes by the search API, the
chat workers by chat questions whose model (the fake Ollama of bench/model_server.py, a process
of its own) calls the vault's search tool. The jobs worker searches nothing here.
"""

import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.processes import answers, rollup  # noqa: E402
from tests.helpers.services import (  # noqa: E402
    celery_workers,
    free_port,
    spawn,
    stop,
    wait_until,
)
from tests.wsclient import WebSocket  # noqa: E402

CHUNKS = int(os.environ.get("BENCH_RUN_CHUNKS", "200000"))
DIM = 384
PER_DOCUMENT = 100
BATCH = 5000  # chunks written at a time
ATTEMPTS = 60  # searches (or questions) at most before a process that never searched is an error


scratch = Path(tempfile.mkdtemp(prefix="bench-run-memory-"))
redis_port, web_port, https_port, model_port = (free_port() for _ in range(4))
web_url = f"http://127.0.0.1:{web_port}"
model_url = f"http://127.0.0.1:{model_port}"
os.environ |= {
    "DATA_DIR": str(scratch / "data"),
    "HOST": "127.0.0.1",
    "PORT": str(web_port),
    "WEB_PORT": str(web_port),
    "HTTPS_PORT": str(https_port),
    "REDIS_PORT": str(redis_port),
    "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
    "CHAT_PROCESSES": "2",
    "CHAT_CONCURRENCY": "16",
    "OLLAMA_HOST": model_url,
    "LLM_BACKEND": "ollama",
    "EMBEDDING_BACKEND": "ollama",
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
from apps.vault.chunking import windows  # noqa: E402
from apps.vault.models import Chunk, Document  # noqa: E402
from apps.vault.search import live  # noqa: E402
from apps.vault.search.store import index_dir  # noqa: E402

SENTENCES = [
    "Mitochondria are the power plants of the cell and make most of its ATP from sugar and air.",
    "Chloroplasts hold chlorophyll, which takes in red and blue light and reflects the green.",
    "The vacuole stores water and gives a plant cell the firmness that keeps the leaf upright.",
    "Ribosomes read the messenger RNA three letters at a time and join amino acids in order.",
    "The Golgi apparatus sorts and packs proteins into vesicles that carry them where needed.",
    "The nucleus keeps the DNA, and its pores let messenger RNA out towards the ribosomes.",
]


def passage(n: int) -> str:
    return f"Passage {n}. " + " ".join(SENTENCES[(n + i) % len(SENTENCES)] for i in range(4))


def seed(owner: User, model: str) -> None:
    """CHUNKS chunks in documents of PER_DOCUMENT, each with the vectors the app makes: its own
    and its sentence windows', random here (the memory does not depend on what they say)."""
    made = np.random.default_rng(7)
    for first in range(0, CHUNKS, BATCH):
        count = min(BATCH, CHUNKS - first)
        documents = Document.objects.bulk_create(
            Document(
                owner=owner,
                filename=f"notes-{n:06d}.txt",
                format="txt",
                stored_name=f"{n:032x}.txt",
                sha256=f"{n:064x}",
                chunked_sha256=f"{n:064x}",
                indexed_sha256=f"{n:064x}",
                status=Document.Status.DONE,
                chunk_count=PER_DOCUMENT,
            )
            for n in range(first // PER_DOCUMENT, (first + count) // PER_DOCUMENT)
        )
        chunks = []
        for document in documents:
            for ordinal in range(PER_DOCUMENT):
                text = passage(document.pk * PER_DOCUMENT + ordinal)
                vectors = made.standard_normal((1 + len(windows(text)), DIM), dtype=np.float32)
                vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
                chunks.append(
                    Chunk(
                        document=document,
                        document_sha256=document.sha256,
                        ordinal=ordinal,
                        text=text,
                        embedding=vectors.tobytes(),
                        embedding_model=model,
                    )
                )
        Chunk.objects.bulk_create(chunks)


def descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        found.append(parent)
        children = Path(f"/proc/{parent}/task/{parent}/children")
        if children.exists():
            todo += [int(child) for child in children.read_text().split()]
    return found


def command_line(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()


def maps_index(pid: int) -> bool:
    return str(index_dir()) in Path(f"/proc/{pid}/maps").read_text()


def index_memory(pid: int) -> tuple[int, int]:
    """(RSS, PSS) in bytes of the process's mappings of the index's files."""
    folder, inside, rss, pss = str(index_dir()), False, 0, 0
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        name, _, value = line.partition(":")
        if not name.isalpha() and " " in line:  # a mapping's first line: addresses ... path
            inside = folder in line
        elif inside and name in ("Rss", "Pss"):
            size = int(value.split()[0]) * 1024
            rss, pss = (rss + size, pss) if name == "Rss" else (rss, pss + size)
    return rss, pss


def role(pid: int) -> str:
    command = command_line(pid)
    if "redis-server" in command:
        return "Redis"
    if "honcho" in command:
        return "honcho (one, and one per process it runs)"
    if "cognivault_site.serve" in command:  # the launcher, and the daphnes forked from it
        return "web" if command_line(psutil.Process(pid).ppid()) == command else "web (parent)"
    if "-Q chat" in command:
        return "chat worker"
    if "celery" in command:
        return "jobs worker"
    return command[:40]


def searched_by_web(pids: list[int], cookie: str) -> None:
    """Search through the API until every web process has mapped the index: each new
    connection goes to one of the processes sharing the port."""
    request = urllib.request.Request(
        web_url + "/api/v1/vault/search?q=mitochondria%20ATP&k=7", headers={"Cookie": cookie}
    )
    for _ in range(ATTEMPTS):
        if all(maps_index(pid) for pid in pids):
            return
        with urllib.request.urlopen(request, timeout=120) as response:
            assert json.loads(response.read()), "the search found nothing"
    raise RuntimeError("a web process never searched")


def searched_by_chat(pids: list[int], owner: User, cookie: str) -> None:
    """Ask until every chat worker has answered one question with the vault's search tool."""
    thread = Thread.objects.create(owner=owner)
    for number in range(ATTEMPTS):
        if all(maps_index(pid) for pid in pids):
            return
        socket = WebSocket(web_url, f"/ws/chat/{thread.pk}/", cookie)
        socket.receive()
        socket.send_json(json.dumps({"content": f"What do mitochondria make? ({number})"}))
        while True:
            frame = socket.receive(timeout=120)
            if 'class="message assistant done" hx-swap-oob' in frame:
                break
            if 'class="message assistant failed" hx-swap-oob' in frame:
                raise RuntimeError(frame)
        socket.close()
    raise RuntimeError("a chat worker never searched")


@dataclass
class Measured:
    seeded: float  # seconds to write the chunks
    built: float  # seconds to build the index from them
    roles: dict[int, str]  # pid: what the process is
    memory: dict[int, dict[str, int]]  # pid: its smaps_rollup
    index: dict[int, tuple[int, int]]  # pid: RSS and PSS of its mappings of the index


def main() -> None:
    logs = scratch / "logs"
    logs.mkdir()
    redis = spawn(
        [shutil.which("redis-server"), "--port", str(redis_port), "--bind", "127.0.0.1"]
        + ["--save", "", "--appendonly", "no", "--dir", str(scratch)],
        os.environ,
        logs / "redis.log",
    )
    model = spawn(
        [sys.executable, "-m", "apps.llm.tests.fake_ollama", str(model_port)]
        + ["--delay", "0.01", "--embedding", ",".join(["1"] + ["0"] * (DIM - 1))]
        + ["--script", "bench.model_server:script"],
        os.environ | {"BENCH_SHORT_ANSWER": "1"},
        logs / "model.log",
    )
    honcho = None
    try:
        wait_until(lambda: answers(model_url + "/api/tags"), timeout=600, what="the model server")
        with contextlib.redirect_stdout(io.StringIO()):  # the addresses it prints
            call_command("prepare", verbosity=0)
        owner = User.objects.create_user("bench-teacher", is_staff=True)
        seeded, built = build_vault(owner)
        honcho = spawn(
            [ROOT / ".venv/bin/honcho", "start", "-c", "chat=2", "web", "worker", "chat"],
            os.environ,
            logs / "honcho.log",
        )
        wait_until(
            lambda: answers(web_url + "/api/v1/health"), timeout=600, what="the web processes"
        )
        wait_until(  # the jobs worker and the two chat workers
            lambda: len(celery_workers(os.environ["REDIS_URL"])) == 3,
            timeout=600,
            what="the workers",
        )
        pids = [*descendants(honcho.pid), redis.pid]
        roles = {pid: role(pid) for pid in pids}
        client = Client()
        client.force_login(owner)
        cookie = f"sessionid={client.cookies['sessionid'].value}"
        searched_by_web([pid for pid in pids if roles[pid] == "web"], cookie)
        searched_by_chat([pid for pid in pids if roles[pid] == "chat worker"], owner, cookie)
        measured = Measured(
            seeded,
            built,
            roles,
            {pid: rollup(pid) for pid in pids},
            {pid: index_memory(pid) for pid in pids},
        )
    finally:
        for process in (honcho, model, redis):
            if process is not None:
                stop(process)
        shutil.rmtree(scratch, ignore_errors=True)
    report(measured)


def build_vault(owner: User) -> tuple[float, float]:
    """Seconds to write the chunks, and to build the index from them."""
    began = time.perf_counter()
    seed(owner, gateway.embedding_model().name)
    seeded = time.perf_counter() - began
    began = time.perf_counter()
    size = len(live.current())
    assert size == CHUNKS, f"the index holds {size} chunks, not {CHUNKS}"
    return seeded, time.perf_counter() - began


def report(measured: Measured) -> None:
    mib = 2**20
    memory, index, roles = measured.memory, measured.index, measured.roles
    print(f"## `make run` with {CHUNKS:,} chunks\n")
    print(
        f"Written in {measured.seeded:.0f} s; the index built from them in {measured.built:.0f} s."
        " RSS of each process; PSS (shared pages split among the processes that map them) of"
        " all of a kind.\n"
    )
    print("| processes | how many | mapping the index | RSS, each | PSS, all |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name in sorted(set(roles.values())):
        pids = [pid for pid in roles if roles[pid] == name]
        each = sorted(memory[pid]["Rss"] / mib for pid in pids)
        print(
            f"| {name} | {len(pids)} | {sum(index[pid][0] > 0 for pid in pids)} "
            f"| {' / '.join(f'{value:,.0f}' for value in each)} MiB "
            f"| {sum(memory[pid]['Pss'] for pid in pids) / mib:,.0f} MiB |"
        )
    largest = max(figures["Rss"] for figures in memory.values())
    rss = sum(figures["Rss"] for figures in memory.values())
    pss = sum(figures["Pss"] for figures in memory.values())
    print(
        f"\nThe index's files: {max(rss for rss, _ in index.values()) / mib:,.0f} MiB resident "
        f"in the process that read most of them, {sum(pss for _, pss in index.values()) / mib:,.0f}"
        f" MiB of PSS in all. The {len(memory)} processes: RSS {rss / mib:,.0f} MiB, PSS"
        f" {pss / mib:,.0f} MiB; the largest one's RSS {largest / mib:,.0f} MiB; their PSS ÷ that"
        f" {pss / largest:.2f}×."
    )


if __name__ == "__main__":
    main()
