from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from apps.progress import tracking
from apps.progress.activity import Activity
from apps.progress.models import Event, StudySession
from apps.progress.tests.helpers import live_in

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
BERLIN = ZoneInfo("Europe/Berlin")


def test_a_message_exactly_900_seconds_after_the_last_extends_the_session(alice):
    tracking.record_message(alice, at=T0)
    tracking.record_message(alice, at=T0 + timedelta(seconds=900))
    [session] = StudySession.objects.filter(user=alice)
    assert session.message_count == 2
    assert session.duration == timedelta(seconds=900)


def test_a_message_901_seconds_later_opens_a_new_session(alice):
    tracking.record_message(alice, at=T0)
    tracking.record_message(alice, at=T0 + timedelta(seconds=901))
    sessions = StudySession.objects.filter(user=alice).order_by("started_at")
    assert [(s.message_count, s.duration) for s in sessions] == [
        (1, timedelta(0)),
        (1, timedelta(0)),
    ]


def test_the_gap_is_measured_from_the_last_message_not_the_first(alice):
    for minutes in (0, 14, 28, 42):
        tracking.record_message(alice, at=T0 + timedelta(minutes=minutes))
    [session] = StudySession.objects.filter(user=alice)
    assert session.duration == timedelta(minutes=42)
    assert session.message_count == 4


def test_the_idle_gap_comes_from_the_setting(alice, settings):
    settings.STUDY_SESSION_IDLE_GAP_SECONDS = 60
    tracking.record_message(alice, at=T0)
    tracking.record_message(alice, at=T0 + timedelta(seconds=61))
    assert StudySession.objects.filter(user=alice).count() == 2


def test_each_message_is_an_event_of_its_session(alice):
    tracking.record_message(alice, at=T0, scope_used=True, attachments=2)
    event = Event.objects.get(user=alice)
    assert event.session == StudySession.objects.get(user=alice)
    assert (event.scope_used, event.attachments, event.at) == (True, 2, T0)


def test_people_have_separate_sessions(alice, bob):
    tracking.record_message(alice, at=T0)
    tracking.record_message(bob, at=T0 + timedelta(minutes=1))
    assert StudySession.objects.filter(user=alice).get().message_count == 1
    assert StudySession.objects.filter(user=bob).get().message_count == 1


def test_a_session_across_local_midnight_is_one_session_split_between_the_two_days(alice):
    live_in(alice, "Europe/Berlin")
    # 23:50 to 00:10 in Berlin (CET, UTC+1).
    tracking.record_message(alice, at=datetime(2026, 1, 14, 22, 50, tzinfo=UTC))
    tracking.record_message(alice, at=datetime(2026, 1, 14, 23, 5, tzinfo=UTC))
    tracking.record_message(alice, at=datetime(2026, 1, 14, 23, 10, tzinfo=UTC))
    assert StudySession.objects.filter(user=alice).count() == 1
    days = Activity(alice).days(date(2026, 1, 14), date(2026, 1, 15))
    assert [(d.seconds, d.sessions, d.messages) for d in days] == [(600, 1, 1), (600, 1, 2)]


def test_the_same_session_falls_on_one_utc_day(alice):
    for minute in (50, 60, 70):
        tracking.record_message(
            alice, at=datetime(2026, 1, 14, 22, tzinfo=UTC) + timedelta(minutes=minute)
        )
    days = Activity(alice).days(date(2026, 1, 14), date(2026, 1, 15))
    assert [d.seconds for d in days] == [1200, 0]


def test_the_night_clocks_spring_forward_counts_real_time(alice):
    live_in(alice, "Europe/Berlin")
    # 01:50 CET, then 03:05 CEST: the wall clock moved 75 minutes, 15 really passed.
    first = datetime(2026, 3, 29, 1, 50, tzinfo=BERLIN)
    second = datetime(2026, 3, 29, 3, 5, tzinfo=BERLIN)
    assert second.astimezone(UTC) - first.astimezone(UTC) == timedelta(minutes=15)
    tracking.record_message(alice, at=first)
    tracking.record_message(alice, at=second)
    [session] = StudySession.objects.filter(user=alice)
    assert session.duration == timedelta(minutes=15)
    assert Activity(alice).day(date(2026, 3, 29)).seconds == 900


def test_the_night_clocks_fall_back_counts_the_repeated_hour(alice):
    live_in(alice, "Europe/Berlin")
    # 02:30 CEST to 02:30 CET on 25 October: the same wall-clock time, one real hour.
    start = datetime(2026, 10, 25, 0, 30, tzinfo=UTC)
    for quarter in range(5):
        tracking.record_message(alice, at=start + quarter * timedelta(minutes=15))
    day = Activity(alice).day(date(2026, 10, 25))
    assert (day.seconds, day.sessions, day.messages, day.level) == (3600, 1, 5, 3)


def test_a_session_across_midnight_before_a_dst_change_splits_at_local_midnight(alice):
    live_in(alice, "Europe/Berlin")
    tracking.record_message(alice, at=datetime(2026, 3, 28, 23, 50, tzinfo=BERLIN))
    tracking.record_message(alice, at=datetime(2026, 3, 29, 0, 5, tzinfo=BERLIN))
    days = Activity(alice).days(date(2026, 3, 28), date(2026, 3, 29))
    assert [d.seconds for d in days] == [600, 300]


def test_naive_times_are_taken_as_utc(alice):
    tracking.record_message(alice, at=datetime(2026, 3, 2, 10, 0))
    assert StudySession.objects.get(user=alice).started_at == T0
