"""The figures kept in the cache are the ones counted from the events and sessions themselves
(in the person's zone), and a new event counts at once."""

from collections import Counter
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from apps.progress import tracking
from apps.progress.activity import Activity, SessionFigures
from apps.progress.badges import EARLY_HOURS, NIGHT_HOURS, Metrics
from apps.progress.models import Event, Metric, StudySession
from apps.progress.tests.helpers import live_in
from tests.helpers.services import free_port

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 20, 21, 40, tzinfo=UTC)  # ten days across Berlin's spring DST change


def study_unevenly(user) -> None:
    """Sessions at every hour of the day and night, some scoped, some with attachments."""
    for n in range(60):
        at = START + timedelta(hours=5 * n, minutes=7 * n)
        for i in range(n % 4 + 1):
            tracking.record_message(
                user, at=at + timedelta(minutes=4 * i), scope_used=i == 1, attachments=n % 3 * i
            )


def counted_from_the_messages(user, zone: ZoneInfo) -> dict:
    rows = Event.objects.filter(user=user, kind=Event.Kind.MESSAGE)
    local = [(event.at.astimezone(zone), event) for event in rows]

    def sessions_in(hours):
        return len({e.session_id for moment, e in local if moment.hour in hours})

    return {
        "count": len(local),
        "scoped": sum(e.scope_used for _, e in local),
        "with_attachments": sum(e.attachments > 0 for _, e in local),
        "per_day": dict(Counter(moment.date() for moment, _ in local)),
        "night": sessions_in(NIGHT_HOURS),
        "early": sessions_in(EARLY_HOURS),
    }


def figures(activity: Activity) -> dict:
    kept = activity.message_figures
    return {
        "count": kept.count,
        "scoped": kept.scoped,
        "with_attachments": kept.with_attachments,
        "per_day": kept.per_day,
        "night": activity.sessions_with_messages_in_hours(NIGHT_HOURS),
        "early": activity.sessions_with_messages_in_hours(EARLY_HOURS),
    }


@pytest.mark.parametrize("zone", ["Europe/Berlin", "Asia/Kathmandu", "America/St_Johns", "UTC"])
def test_the_kept_figures_are_those_counted_from_the_messages(alice, zone):
    live_in(alice, zone)
    study_unevenly(alice)
    expected = counted_from_the_messages(alice, ZoneInfo(zone))
    assert expected["night"] and expected["early"] and expected["scoped"]
    assert figures(Activity(alice)) == expected  # counted, then kept
    assert figures(Activity(alice)) == expected  # read back from the cache


def test_a_new_message_counts_at_once(alice):
    study_unevenly(alice)
    before = figures(Activity(alice))
    late = datetime(2026, 5, 1, 23, 10, tzinfo=UTC)  # a night-owl message in a new session
    tracking.record_message(alice, at=late, attachments=2)
    after = figures(Activity(alice))
    assert after == counted_from_the_messages(alice, ZoneInfo("UTC"))
    assert after["count"] == before["count"] + 1
    assert after["per_day"][late.date()] == 1
    assert after["night"] == before["night"] + 1


def test_a_late_arriving_earlier_message_counts_at_once(alice):
    study_unevenly(alice)
    assert Activity(alice).message_figures.count == 150
    tracking.record_message(alice, at=START - timedelta(days=3))
    assert figures(Activity(alice)) == counted_from_the_messages(alice, ZoneInfo("UTC"))


def test_figures_kept_for_one_zone_are_not_shown_in_another(alice):
    study_unevenly(alice)
    assert figures(Activity(alice)) == counted_from_the_messages(alice, ZoneInfo("UTC"))
    live_in(alice, "Pacific/Auckland")
    expected = counted_from_the_messages(alice, ZoneInfo("Pacific/Auckland"))
    assert figures(Activity(alice)) == expected


def test_each_person_has_their_own_figures(alice, bob):
    study_unevenly(alice)
    tracking.record_message(bob, at=START)
    assert figures(Activity(alice)) == counted_from_the_messages(alice, ZoneInfo("UTC"))
    assert figures(Activity(bob)) == counted_from_the_messages(bob, ZoneInfo("UTC"))


def test_the_dashboard_is_counted_without_its_cache_while_redis_is_down(
    alice, alice_client, settings
):
    tracking.record_message(alice, at=datetime.now(UTC) - timedelta(minutes=5))
    settings.CACHES = {
        "default": {
            "BACKEND": "cognivault_site.cache.SharedPoolRedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",  # nothing listens there
        }
    }
    page = alice_client.get("/progress/")
    assert page.status_code == 200
    assert 'data-stat="sessions">1<' in page.text


def test_badge_counts_follow_each_new_event(alice):
    tracking.record_deck_created(alice)
    assert Metrics(Activity(alice))[Metric.DECKS] == 1
    tracking.record_deck_created(alice)
    tracking.record_quiz(alice, score_percent=100, difficulty="advanced")
    metrics = Metrics(Activity(alice))
    assert (metrics[Metric.DECKS], metrics[Metric.PERFECT_QUIZZES]) == (2, 1)
    assert metrics.counts() == Metrics(Activity(alice)).count()


def test_the_dashboard_shows_progress_made_since_it_was_last_opened(alice_client, alice):
    tracking.record_deck_created(alice)
    assert "1 / 5 decks created" in alice_client.get("/progress/").text
    tracking.record_deck_created(alice)
    assert "2 / 5 decks created" in alice_client.get("/progress/").text


@pytest.mark.parametrize("zone", ["Europe/Berlin", "Asia/Kathmandu", "America/St_Johns", "UTC"])
def test_the_kept_session_figures_are_those_counted_from_the_sessions(alice, zone):
    live_in(alice, zone)
    study_unevenly(alice)
    durations = [s.duration.total_seconds() for s in StudySession.objects.filter(user=alice)]
    counted = SessionFigures(*Activity(alice).count_sessions())
    assert (counted.count, counted.total_seconds) == (len(durations), int(sum(durations)))
    assert counted.longest_seconds == int(max(durations))
    assert sum(seconds for seconds, _ in counted.per_day.values()) == counted.total_seconds
    assert Activity(alice).session_figures == counted  # kept
    assert Activity(alice).session_figures == counted  # read back from the cache


def test_a_message_that_extends_a_session_counts_at_once(alice):
    start = datetime(2026, 5, 1, 10, 0, tzinfo=UTC)
    tracking.record_message(alice, at=start)
    assert Activity(alice).day(start.date()).seconds == 0
    tracking.record_message(alice, at=start + timedelta(minutes=10))
    day = Activity(alice).day(start.date())
    assert (day.seconds, day.sessions, day.messages) == (600, 1, 2)
    assert Activity(alice).total_seconds == 600
