from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from apps.progress import tracking
from apps.progress.activity import Activity
from apps.progress.tests.helpers import earned_codes, live_in

pytestmark = pytest.mark.django_db

AUCKLAND = ZoneInfo("Pacific/Auckland")  # UTC+13 in January
# 23:00 on the 10th, 01:00 on the 11th and 01:00 on the 12th in Auckland; in UTC all three
# fall on the 10th and 11th.
MESSAGES = [
    datetime(2026, 1, 10, 10, 0, tzinfo=UTC),
    datetime(2026, 1, 10, 12, 0, tzinfo=UTC),
    datetime(2026, 1, 11, 12, 0, tzinfo=UTC),
]
NOW = datetime(2026, 1, 12, 5, 0, tzinfo=UTC)  # 18:00 on the 12th in Auckland


def test_a_streak_counts_local_days_in_the_persons_zone(alice):
    live_in(alice, "Pacific/Auckland")
    for at in MESSAGES:
        tracking.record_message(alice, at=at)
    assert Activity(alice, now=NOW).current_streak == 3
    assert Activity(alice, now=NOW).longest_streak == 3
    assert Activity(alice, zone=ZoneInfo("UTC"), now=NOW).current_streak == 2


def test_the_three_day_badge_follows_the_local_days(alice, bob):
    live_in(alice, "Pacific/Auckland")
    for at in MESSAGES:
        tracking.record_message(alice, at=at)
        tracking.record_message(bob, at=at)
    assert "streak_3" in earned_codes(alice)
    assert "streak_3" not in earned_codes(bob)


def test_a_streak_is_not_broken_before_the_day_is_over(alice):
    for days_ago in (1, 2, 3):
        tracking.record_message(alice, at=NOW - timedelta(days=days_ago))
    assert Activity(alice, now=NOW).current_streak == 3
    tracking.record_message(alice, at=NOW)
    assert Activity(alice, now=NOW).current_streak == 4


def test_a_missed_day_ends_the_current_streak_but_not_the_longest(alice):
    for days_ago in (2, 3, 4, 5):
        tracking.record_message(alice, at=NOW - timedelta(days=days_ago))
    activity = Activity(alice, now=NOW)
    assert (activity.current_streak, activity.longest_streak) == (0, 4)


def test_nobody_has_a_streak_before_studying(alice):
    assert Activity(alice, now=NOW).current_streak == 0
