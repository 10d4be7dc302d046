"""Pages: how long each page takes to render with a realistic vault (1,000 documents, 50 chats,
20 decks, quizzes, workshops, mindmaps and 90 days of study), and how many queries it runs; then
the reader per format, opened at a cited passage: the first view (the reader, its page asked
for, drawn by the worker's own function in the reading sandbox, asked again and its image
served) and the cached one (the same three requests once it is drawn).

Each page is asked alone through Django's test client, logged in, warm (a few requests first);
median and p95 of the repeats. SQLite in a throwaway DATA_DIR by default; BENCH_DATABASE=postgres
runs the same against a throwaway PostgreSQL cluster (tests/postgres.py). BENCH_PAGES picks
pages by name, comma-separated (`BENCH_PAGES="progress,progress day"`, `BENCH_PAGES=reader` for
the reader alone); every page by default.
"""

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["DATA_DIR"] = tempfile.mkdtemp(prefix="bench-pages-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cognivault_site.settings")
os.environ["EGRESS_RECORD"] = "false"  # the bench's own loopback connections are no news

from tests import postgres  # noqa: E402

cluster = None
if os.environ.get("BENCH_DATABASE") == "postgres":
    cluster = postgres.Cluster().start()
    os.environ["DATABASE_URL"] = cluster.create_database("bench")

import django  # noqa: E402
import pymupdf  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.utils import timezone  # noqa: E402

from apps.vault.models import Document  # noqa: E402
from apps.vault.reading import renderings  # noqa: E402
from apps.vault.reading.models import Rendering  # noqa: E402
from apps.vault.reading.tests.documents import drawn, read_in  # noqa: E402
from apps.vault.tests import files  # noqa: E402
from apps.vault.tests.helpers import upload  # noqa: E402
from tests.vault_seed import FRAGMENTS, pages, seed  # noqa: E402

WARM = 3
REPEATS = int(os.environ.get("BENCH_REPEATS", "30"))
ONLY = {name.strip() for name in os.environ.get("BENCH_PAGES", "").split(",") if name.strip()}
TARGET_MS = 15
FIRST_VIEWS = int(os.environ.get("BENCH_READER_FIRST_VIEWS", "5"))


def measure(client: Client, url: str, fragment: bool) -> tuple[float, float, int]:
    headers = {"HTTP_HOST": "localhost", **({"HTTP_HX_REQUEST": "true"} if fragment else {})}
    for _ in range(WARM):
        response = client.get(url, **headers)
        assert response.status_code == 200, (url, response.status_code)
    with CaptureQueriesContext(connection) as queries:
        client.get(url, **headers)
    count = len(queries)  # read now: the log is cleared when the next request starts
    times = []
    for _ in range(REPEATS):
        began = time.perf_counter()
        client.get(url, **headers)
        times.append((time.perf_counter() - began) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1], count


def main() -> None:
    # Rate limits and the channel layer would need Redis: in memory here, as in the tests.
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("migrate", verbosity=0)
    now = timezone.now()
    began = time.perf_counter()
    vault = seed(now)
    seeded = time.perf_counter() - began
    clients = {}
    rows = []
    for name, user, url in pages(vault, now):
        if ONLY and name not in ONLY:
            continue
        if user.pk not in clients:
            clients[user.pk] = Client()
            clients[user.pk].force_login(user)
        rows.append((name, url, *measure(clients[user.pk], url, name in FRAGMENTS)))

    print(f"### Pages ({connection.vendor}, {REPEATS} requests each)\n")
    print(
        f"{vault.documents:,} documents, {vault.chats} chats, {vault.decks} decks, "
        f"90 days of study; seeded in {seeded:.1f} s.\n"
    )
    print("| page | URL | median (ms) | p95 (ms) | queries | ≤ 15 ms |")
    print("| --- | --- | ---: | ---: | ---: | :---: |")
    for name, url, median, p95, queries in rows:
        met = "yes" if median <= TARGET_MS else "**no**"
        print(f"| {name} | `{url}` | {median:.1f} | {p95:.1f} | {queries} | {met} |")
    if not ONLY or "reader" in ONLY:
        print_reader(vault.student)


def big_pdf(path: Path, pages: int = 2000) -> Path:
    document = pymupdf.open()
    for number in range(1, pages + 1):
        page = document.new_page()
        page.insert_textbox(pymupdf.Rect(50, 50, 550, 800), f"Page {number}. " + files.LOREM * 4)
    document.save(path)
    return path


def reader_documents(owner, folder: Path) -> list[tuple[str, object, int]]:
    """(what, document, the page of the passage cited) for each format the reader shows."""
    made = [
        ("PDF, text", files.text_pdf(folder / "handout.pdf", pages=12), 6),
        ("PDF, a scanned page", files.scanned_page_pdf(folder / "scan.pdf"), 2),
        ("DOCX", files.docx_file(folder / "notes.docx"), 0),
        ("PPTX", files.pptx_file(folder / "slides.pptx"), 0),
        ("XLSX", files.xlsx_file(folder / "budget.xlsx", rows=500), 0),
        ("CSV", files.csv_file(folder / "species.csv", rows=500), 0),
        ("Markdown", files.markdown_file(folder / "genetics.md"), 0),
        ("HTML", files.html_file(folder / "enzymes.html"), 0),
    ]
    documents = [(what, read_in(owner, path), page) for what, path, page in made]
    return [*documents, ("PDF, 2,000 pages", manual(owner, folder), 1000)]


def manual(owner, folder: Path):
    """A 2,000-page PDF as ingestion leaves it, with the one chunk cited: its page 1000."""
    path = big_pdf(folder / "manual.pdf")
    document = upload(owner, path)
    with pymupdf.open(path) as pdf:
        text = pdf[999].get_text("text").strip()[:900]
    Document.objects.filter(pk=document.pk).update(pages=2000, status=Document.Status.DONE)
    document.chunks.create(document_sha256=document.sha256, ordinal=0, page=1000, text=text)
    document.refresh_from_db()
    return document


def open_reader(client: Client, document, number: int, draw: bool) -> float:
    """ms to open the reader at the cited passage and see its page: the page, its slot asked for
    (and, on a first view, drawn, then asked for again) and its image."""
    chunk = document.chunks.filter(page=number or None).last()
    query = f"?chunk={chunk.pk}" if chunk else ""
    fragment = f"/vault/documents/{document.pk}/pages/{number}/{query}"
    began = time.perf_counter()
    assert client.get(f"/vault/documents/{document.pk}/{query}").status_code == 200
    shown = client.get(fragment, HTTP_HX_REQUEST="true").text
    if draw:
        drawn(document, number)
        shown = client.get(fragment, HTTP_HX_REQUEST="true").text
    assert 'aria-labelledby="page-' in shown
    if number:
        image = client.get(f"/api/v1/vault/documents/{document.pk}/pages/{number}.png")
        b"".join(image.streaming_content)
    return (time.perf_counter() - began) * 1000


class NoBroker:
    """The bench draws each page itself (below), as the jobs worker would: nothing is queued."""

    def __init__(self, *args, **kwargs) -> None:
        pass

    def apply_async(self) -> None:
        pass


def print_reader(student) -> None:
    settings.RATE_LIMIT_PAGES_DRAWN = ""
    renderings.signature = NoBroker
    client = Client(HTTP_HOST="localhost")
    client.force_login(student)
    rows = []
    for what, document, number in reader_documents(student, Path(tempfile.mkdtemp())):
        first = []
        for _ in range(FIRST_VIEWS):
            Rendering.objects.filter(document=document).delete()
            first.append(open_reader(client, document, number, draw=True))
        cached = sorted(open_reader(client, document, number, False) for _ in range(REPEATS))
        first.sort()
        rows.append((what, first, cached))
    print(f"\n### The reader ({FIRST_VIEWS} first views, {REPEATS} cached, each format)\n")
    print("| document | first view p50 (ms) | p95 | cached p50 (ms) | p95 |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for what, first, cached in rows:
        print(
            f"| {what} | {statistics.median(first):.0f} | {p95(first):.0f} | "
            f"{statistics.median(cached):.1f} | {p95(cached):.1f} |"
        )


def p95(times: list[float]) -> float:
    return times[max(int(len(times) * 0.95) - 1, 0)]


if __name__ == "__main__":
    try:
        main()
    finally:
        if cluster is not None:
            connection.close()
            cluster.stop()
