from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from apps.accounts.models import ApiToken
from apps.progress import tracking
from apps.progress.tests.helpers import live_in, study

# The clock is pinned at MIDDAY (tests/helpers/clock.py) before anyone logs in: these figures
# count back from today, and a session made at the real time could look expired at the pinned
# one.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("midday")]


def test_the_summary_reports_time_sessions_messages_streak_and_badges(alice_client, alice):
    # At midday no hour badge (night owl, early bird) is earned by these messages.
    study(alice, timezone.now() - timedelta(hours=2), 20 * 60)  # 10:00, 10:15, 10:20
    tracking.record_message(alice, at=timezone.now() - timedelta(minutes=30))
    body = alice_client.get("/api/v1/progress/summary").json()
    assert body == {
        "time_zone": "UTC",
        "total_seconds": 1200,
        "sessions": 2,
        "messages": 4,
        "current_streak": 1,
        "longest_streak": 1,
        "badges_earned": 1,
        "badges_total": 25,
    }


def test_the_heatmap_has_90_days_in_the_persons_zone(alice_client, alice):
    live_in(alice, "Asia/Kolkata")
    body = alice_client.get("/api/v1/progress/heatmap").json()
    assert body["time_zone"] == "Asia/Kolkata"
    assert len(body["days"]) == 90
    assert body["days"][-1]["date"] == body["last_day"]
    assert {day["level"] for day in body["days"]} == {0}


def test_achievements_list_every_badge_with_progress(alice_client, alice):
    tracking.record_card_flip(alice)
    body = {a["code"]: a for a in alice_client.get("/api/v1/progress/achievements").json()}
    assert len(body) == 25
    assert body["card_reviewer"]["value"] == 1 and body["card_reviewer"]["target"] == 50
    assert body["card_reviewer"]["earned"] is False
    assert body["first_deck"]["next_level"] == "deck_collector"


def test_a_day_lists_its_figures_and_badges(alice_client, alice):
    at = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
    tracking.record_message(alice, at=at)
    body = alice_client.get("/api/v1/progress/days/2026-04-01").json()
    assert (body["sessions"], body["messages"], body["level"]) == (1, 1, 1)
    assert [b["code"] for b in body["badges"]] == ["first_question"]


@pytest.mark.parametrize("day", ["2026-02-30", "someday"])
def test_a_bad_day_gets_a_clear_422(alice_client, day):
    response = alice_client.get(f"/api/v1/progress/days/{day}")
    assert response.status_code == 422
    assert "detail" in response.json()


@pytest.mark.parametrize("day", ["0198-08-01", "1999-12-31", "3000-01-01", "9999-12-31"])
def test_a_date_with_no_figures_to_show_is_a_404_naming_the_days_there_are(alice_client, day):
    response = alice_client.get(f"/api/v1/progress/days/{day}")
    assert response.status_code == 404
    assert "pick a day from 2000-01-01 to" in response.json()["detail"]


def test_tomorrow_has_figures_and_the_404_names_it_as_the_last_day(alice, alice_client):
    """Pinned at MIDDAY, 2026-04-15 in UTC: a zone ahead is already on the 16th."""
    live_in(alice, "UTC")
    tomorrow = alice_client.get("/api/v1/progress/days/2026-04-16")
    after = alice_client.get("/api/v1/progress/days/2026-04-17")

    assert tomorrow.status_code == 200
    assert after.status_code == 404
    assert after.json()["detail"] == (
        "No study figures for 2026-04-17: pick a day from 2000-01-01 to 2026-04-16."
    )


def test_the_api_works_with_a_bearer_token(client, alice):
    _, raw = ApiToken.objects.issue(alice, "script")
    response = client.get("/api/v1/progress/summary", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 200


def test_the_api_needs_authentication(client):
    for path in ["summary", "heatmap", "achievements", "days/2026-01-01", "class"]:
        assert client.get(f"/api/v1/progress/{path}").status_code == 401


def test_nobody_sees_anothers_figures_through_the_api(alice, bob_client):
    tracking.record_message(alice, at=datetime(2026, 4, 1, 9, 0, tzinfo=UTC))
    tracking.record_deck_created(alice)
    assert bob_client.get("/api/v1/progress/summary").json()["sessions"] == 0
    day = bob_client.get("/api/v1/progress/days/2026-04-01").json()
    assert (day["messages"], day["badges"]) == (0, [])
    earned = [a for a in bob_client.get("/api/v1/progress/achievements").json() if a["earned"]]
    assert earned == []
