"""Progress: how long one chat message's tracking takes (session + event + badge check) as a
person's history grows, and how long the dashboard takes to build. Medians of repeated runs."""

import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ["DATA_DIR"] = tempfile.mkdtemp(prefix="bench-progress-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cognivault_site.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from apps.accounts.models import User  # noqa: E402
from apps.progress import tracking  # noqa: E402
from apps.progress.models import EarnedBadge, Event, StudySession  # noqa: E402

REPEATS = 30
START = datetime(2025, 1, 1, 8, 0, tzinfo=UTC)


def fill(user, messages: int) -> None:
    """History written directly: one 20-message session a day."""
    sessions, events = [], []
    for n in range(messages):
        at = START + timedelta(days=n // 20, minutes=2 * (n % 20))
        if n % 20 == 0:
            sessions.append(StudySession(user=user, started_at=at, ended_at=at, message_count=0))
        events.append((at, len(sessions) - 1))
    StudySession.objects.bulk_create(sessions)
    for session in sessions:
        session.ended_at = session.started_at + timedelta(minutes=38)
        session.message_count = 20
    StudySession.objects.bulk_update(sessions, ["ended_at", "message_count"])
    Event.objects.bulk_create(
        Event(user=user, kind=Event.Kind.MESSAGE, at=at, session=sessions[i]) for at, i in events
    )


def median_ms(run) -> float:
    times = []
    for _ in range(REPEATS):
        began = time.perf_counter()
        run()
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


def main() -> None:
    call_command("migrate", verbosity=0)
    rows = []
    for history in (0, 1_000, 10_000):
        user = User.objects.create_user(f"bench{history}", password="x" * 12)
        fill(user, history)
        clock = [START + timedelta(days=2000)]

        def message(user=user, clock=clock):
            clock[0] += timedelta(minutes=1)
            tracking.record_message(user, at=clock[0])

        cold = median_ms(message)  # the badges that can still be earned are checked each time
        client = Client()
        client.force_login(user)
        dashboard = median_ms(lambda c=client: c.get("/progress/", HTTP_HOST="localhost"))
        open_badges = 25 - EarnedBadge.objects.filter(user=user).count()
        rows.append((history, cold, dashboard, open_badges))

    base = rows[0]
    print("### Progress tracking\n")
    print(
        "| prior messages | record_message median (ms) | × vs empty | dashboard median (ms) "
        "| × vs empty | badges still open |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for history, cold, dashboard, open_badges in rows:
        print(
            f"| {history:,} | {cold:.1f} | {cold / base[1]:.1f} | {dashboard:.1f} "
            f"| {dashboard / base[2]:.1f} | {open_badges} |"
        )


if __name__ == "__main__":
    main()
