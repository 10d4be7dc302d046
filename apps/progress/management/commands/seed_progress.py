"""Demo study history for one person, recorded through the same tracking calls the app makes.

Sessions of varied length on most of the last N days (always today and the two days before),
plus a quiz, a deck and a mindmap, so the dashboard shows every heatmap level and some badges.
"""

from datetime import UTC, datetime, time, timedelta

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from apps.accounts.models import User
from apps.progress import tracking
from apps.progress.models import LocalZone, valid_zone

# Minutes of study per day, newest first; 0 = a day off. Cycles for longer histories.
PATTERN = [20, 75, 5, 0, 200, 40, 0, 10, 0, 90]
MESSAGE_EVERY_MINUTES = 5


class Command(BaseCommand):
    help = "Record a demo study history for a user (for demos and end-to-end tests)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("username")
        parser.add_argument("--days", type=int, default=30)
        parser.add_argument("--zone", default="", help="Remember this IANA time zone first.")

    def handle(self, *args, username: str, days: int, zone: str, **options) -> None:
        user = User.objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No user {username!r}.")
        if zone:
            if not valid_zone(zone):
                raise CommandError(f"Unknown time zone {zone!r}.")
            LocalZone.objects.remember(user, zone)
        local_zone = LocalZone.objects.zone_for(user)
        today = timezone.now().astimezone(local_zone).date()
        messages = 0
        for offset in reversed(range(max(0, min(days, 365)))):  # oldest first
            minutes = PATTERN[offset % len(PATTERN)]
            if not minutes:
                continue
            day = today - timedelta(days=offset)
            # Sessions start at 09:00 local (today: early enough to be in the past).
            start = datetime.combine(day, time(9), tzinfo=local_zone).astimezone(UTC)
            start = min(start, timezone.now() - timedelta(minutes=minutes + 1))
            for minute in range(0, minutes + 1, MESSAGE_EVERY_MINUTES):
                tracking.record_message(user, at=start + timedelta(minutes=minute))
                messages += 1
        tracking.record_quiz(
            user,
            score_percent=100,
            difficulty="advanced",
            questions_wrong=[],
        )
        tracking.record_deck_created(user)
        tracking.record_mindmap_created(user)
        self.stdout.write(f"Recorded {messages} messages for {username}.")
