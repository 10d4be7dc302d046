import re
from datetime import UTC, date, datetime, timedelta

import pytest
from django.utils import timezone

from apps.progress import tracking
from apps.progress.activity import Activity, level_for
from apps.progress.tests.helpers import live_in, study

# The clock is pinned at MIDDAY (tests/helpers/clock.py) before anyone logs in: these figures
# count back from today, and a session made at the real time could look expired at the pinned
# one.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("midday")]

NOW = datetime(2026, 5, 20, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("seconds", "sessions", "level"),
    [
        (0, 0, 0),
        (0, 1, 1),  # a single message is a check-in
        (15 * 60 - 1, 1, 1),
        (15 * 60, 1, 2),
        (60 * 60 - 1, 1, 2),
        (60 * 60, 1, 3),
        (3 * 3600 - 1, 2, 3),
        (3 * 3600, 2, 4),
        (10 * 3600, 5, 4),
    ],
)
def test_heatmap_levels_follow_the_four_thresholds(seconds, sessions, level):
    assert level_for(seconds, sessions) == level


def test_the_heatmap_has_exactly_the_90_days_ending_today_with_their_levels(alice):
    for days_ago, seconds in [(0, 20 * 60), (1, 0), (2, 5 * 60), (3, 2 * 3600), (89, 3 * 3600)]:
        study(alice, NOW - timedelta(days=days_ago, hours=3), seconds)
    study(alice, NOW - timedelta(days=90, hours=3), 4 * 3600)  # the day before the window
    days = Activity(alice, now=NOW).heatmap_days()
    assert len(days) == 90
    assert (days[0].date, days[-1].date) == (date(2026, 2, 20), date(2026, 5, 20))
    levels = {d.date: d.level for d in days if d.level}
    assert levels == {
        date(2026, 5, 20): 2,
        date(2026, 5, 19): 1,
        date(2026, 5, 18): 1,
        date(2026, 5, 17): 3,
        date(2026, 2, 20): 4,
    }
    assert sum(d.seconds for d in days) == (20 + 5 + 120 + 180) * 60


def test_the_grid_is_13_weeks_of_7_days_with_one_blank_cell_before_the_window(alice):
    weeks = Activity(alice, now=NOW).heatmap_weeks()
    assert [len(week) for week in weeks] == [7] * 13
    cells = [cell for week in weeks for cell in week]
    assert [cell.in_window for cell in cells] == [False] + [True] * 90
    assert cells[-1].date == date(2026, 5, 20)
    # Every row is one weekday.
    for row in range(7):
        assert len({weeks[w][row].date.weekday() for w in range(13)}) == 1


def test_the_heatmap_uses_the_local_day(alice):
    live_in(alice, "America/Los_Angeles")
    # 02:00 UTC on 20 May is still the evening of 19 May in Los Angeles.
    study(alice, datetime(2026, 5, 20, 2, 0, tzinfo=UTC), 20 * 60)
    days = {d.date: d.level for d in Activity(alice, now=NOW).heatmap_days()}
    assert (days[date(2026, 5, 19)], days[date(2026, 5, 20)]) == (2, 0)


def test_the_dashboard_draws_90_labelled_days_and_the_summary(alice_client, alice):
    now = timezone.now()
    study(alice, now - timedelta(hours=2), 40 * 60)
    page = alice_client.get("/progress/")
    assert page.status_code == 200
    cells = re.findall(r'<a class="cell level-(\d)[^"]*"[^>]*aria-label="([^"]+)"', page.text)
    assert len(cells) == 90
    assert page.text.count('class="cell blank"') == 1
    assert 'data-stat="time">40 min<' in page.text
    assert 'data-stat="sessions">1<' in page.text
    assert 'data-stat="streak">1 day<' in page.text
    assert re.search(r"data-badge=\"first_question\"", page.text)
    assert cells[-1][1].endswith(": 40 min, 1 session")  # two hours before noon: today


def test_an_empty_dashboard_tells_a_new_person_what_to_do(alice_client):
    page = alice_client.get("/progress/").text
    assert "Ask your first question" in page
    assert "0 of 25" in page


def test_locked_badges_show_progress_toward_the_target(alice_client, alice):
    for _ in range(3):
        tracking.record_deck_created(alice)
    page = alice_client.get("/progress/").text
    grid = page.split('data-badge="deck_collector"')[1].split("</li>")[0]
    assert "3 / 5 decks created" in grid
    assert 'value="3"' in grid
    first = page.split('data-badge="first_deck"')[1].split("</li>")[0]
    assert "Earned" in first and "Next level: Deck Collector" in first


def test_clicking_a_day_shows_its_figures_and_badges(alice_client, alice):
    day = timezone.now().date() - timedelta(days=3)
    start = datetime.combine(day, datetime.min.time(), tzinfo=UTC) + timedelta(hours=10)
    study(alice, start, 30 * 60)
    url = f"/progress/days/{day.isoformat()}/"
    fragment = alice_client.get(url, HTTP_HX_REQUEST="true")
    assert fragment.status_code == 200
    assert fragment.text.lstrip().startswith('<div id="day-detail"')
    assert 'data-figure="time">30 min<' in fragment.text
    assert 'data-figure="sessions">1<' in fragment.text
    assert 'data-figure="messages">3<' in fragment.text
    assert "First Question" in fragment.text and "Deep Diver" in fragment.text
    # Without htmx the same link is the whole dashboard with that day open.
    full = alice_client.get(url)
    assert "<h1>Dashboard</h1>" in full.text and 'data-figure="time">30 min<' in full.text
    assert f'hx-get="{url}"' in full.text and f'href="{url}"' in full.text


@pytest.mark.parametrize("day", ["yesterday", "2026-02-30", "1900-01-01", "9999-12-31"])
def test_a_bad_day_is_not_found(alice_client, day):
    assert alice_client.get(f"/progress/days/{day}/").status_code == 404


def test_the_browser_zone_is_remembered_and_shown(alice_client, alice):
    alice_client.cookies["tz"] = "Asia/Tokyo"
    page = alice_client.get("/progress/")
    assert "Times in Asia/Tokyo." in page.text
    assert alice.local_zone.name == "Asia/Tokyo"


@pytest.mark.parametrize("value", ["../../../etc/passwd", "Mars/Olympus", "", "UTC; drop"])
def test_a_bad_zone_cookie_is_ignored(alice_client, alice, value):
    alice_client.cookies["tz"] = value
    page = alice_client.get("/progress/")
    assert page.status_code == 200
    assert "Times in UTC." in page.text


def test_people_only_see_their_own_dashboard(alice_client, bob_client, alice):
    study(alice, timezone.now() - timedelta(hours=2), 50 * 60)
    assert 'data-stat="time">50 min<' in alice_client.get("/progress/").text
    bobs = bob_client.get("/progress/").text
    assert 'data-stat="time">0 min<' in bobs
    today = timezone.now().date().isoformat()
    assert 'data-figure="messages">0<' in bob_client.get(f"/progress/days/{today}/").text


def test_the_dashboard_needs_a_login(client):
    for url in ["/progress/", "/progress/days/2026-05-01/", "/progress/class/"]:
        assert client.get(url).url.startswith("/accounts/login/")
