"""Pages: how long each page takes to render with a realistic vault (1,000 documents, 50 chats,
20 decks, quizzes, workshops, mindmaps and 90 days of study), and how many queries it runs.

Each page is asked alone through Django's test client, logged in, warm (a few requests first);
median and p95 of the repeats. SQLite in a throwaway DATA_DIR by default; BENCH_DATABASE=postgres
runs the same against a throwaway PostgreSQL cluster (tests/postgres.py). BENCH_PAGES picks
pages by name, comma-separated (`BENCH_PAGES="progress,progress day"`); every page by default.
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

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from django.utils import timezone  # noqa: E402

from tests.vault_seed import FRAGMENTS, pages, seed  # noqa: E402

WARM = 3
REPEATS = int(os.environ.get("BENCH_REPEATS", "30"))
ONLY = {name.strip() for name in os.environ.get("BENCH_PAGES", "").split(",") if name.strip()}
TARGET_MS = 15


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


if __name__ == "__main__":
    try:
        main()
    finally:
        if cluster is not None:
            connection.close()
            cluster.stop()
