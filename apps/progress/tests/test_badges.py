import importlib
from datetime import UTC, datetime, timedelta

import pytest

from apps.progress import tracking
from apps.progress.badges import evaluate
from apps.progress.models import BadgeDefinition, EarnedBadge
from apps.progress.tests.helpers import earned_codes, live_in, study

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)  # a Monday; Berlin is UTC+1 then
DAY = timedelta(days=1)
MINUTE = timedelta(minutes=1)
DEFAULTS = importlib.import_module("apps.progress.migrations.0002_default_badges").BADGES


def message(user, at=T0, **flags):
    return tracking.record_message(user, at=at, **flags)


def messages(user, n, start=T0, every=MINUTE):
    for i in range(n):
        message(user, start + i * every)


def repeat(record, n, **kwargs):
    def run(user):
        for _ in range(n):
            record(user, **kwargs)

    return run


def nothing(user):
    pass


def days_in_a_row(user, offsets):
    for offset in offsets:
        message(user, T0 + offset * DAY)


def quizzes(*attempts):
    def run(user):
        earned = []
        for score, difficulty in attempts:
            earned += tracking.record_quiz(user, score_percent=score, difficulty=difficulty)
        return earned

    return run


# code -> (what comes close without earning it, the one event that earns it)
CASES = {
    "first_question": (nothing, message),
    "conversationalist": (
        lambda u: (messages(u, 9), messages(u, 9, start=T0 + DAY)),
        lambda u: message(u, T0 + DAY + 9 * MINUTE),
    ),
    "centurion": (lambda u: messages(u, 99), lambda u: message(u, T0 + 99 * MINUTE)),
    "hour_of_power": (
        lambda u: (study(u, T0, 50 * 60), study(u, T0 + DAY, 9 * 60)),
        lambda u: message(u, T0 + DAY + 10 * MINUTE),
    ),
    "streak_3": (
        lambda u: days_in_a_row(u, [0, 1, 3]),
        lambda u: message(u, T0 + 2 * DAY),
    ),
    "streak_7": (
        lambda u: days_in_a_row(u, [0, 1, 2, 4, 5, 6]),
        lambda u: message(u, T0 + 3 * DAY),
    ),
    "deep_diver": (
        lambda u: (messages(u, 3, every=14 * MINUTE), message(u, T0 + 29 * MINUTE)),
        lambda u: message(u, T0 + 30 * MINUTE),
    ),
    # In Berlin (UTC+1): 21:59 and 04:00 are not night; 22:00 is.
    "night_owl": (
        lambda u: (
            live_in(u, "Europe/Berlin"),
            message(u, datetime(2026, 3, 2, 20, 59, tzinfo=UTC)),
            message(u, datetime(2026, 3, 3, 3, 0, tzinfo=UTC)),
        ),
        lambda u: message(u, datetime(2026, 3, 4, 21, 0, tzinfo=UTC)),
    ),
    # 04:59 and 08:00 are not early; 05:00 is.
    "early_bird": (
        lambda u: (
            live_in(u, "Europe/Berlin"),
            message(u, datetime(2026, 3, 2, 3, 59, tzinfo=UTC)),
            message(u, datetime(2026, 3, 3, 7, 0, tzinfo=UTC)),
        ),
        lambda u: message(u, datetime(2026, 3, 4, 4, 0, tzinfo=UTC)),
    ),
    "curious_mind": (
        lambda u: message(u, attachments=2),
        lambda u: message(u, T0 + MINUTE, scope_used=True),
    ),
    "first_quiz": (repeat(tracking.record_deck_created, 1), quizzes((10, "beginner"))),
    "perfect_score": (
        quizzes((99.9, "beginner"), (90, "advanced")),
        quizzes((100, "beginner")),
    ),
    "advanced_scholar": (
        quizzes((79.9, "advanced"), (100, "intermediate")),
        quizzes((80, "Advanced")),
    ),
    "quiz_marathon": (quizzes(*[(50, "beginner")] * 9), quizzes((50, "beginner"))),
    "workshop_outline": (repeat(tracking.record_lesson_completed, 1), tracking.record_outline),
    "lesson_learned": (repeat(tracking.record_outline, 2), tracking.record_lesson_completed),
    "workshop_graduate": (
        repeat(tracking.record_lesson_completed, 3),
        tracking.record_workshop_completed,
    ),
    "workshop_marathon": (
        repeat(tracking.record_workshop_completed, 4),
        tracking.record_workshop_completed,
    ),
    "first_deck": (repeat(tracking.record_card_flip, 1), tracking.record_deck_created),
    "card_reviewer": (repeat(tracking.record_card_flip, 49), tracking.record_card_flip),
    "deck_master": (
        repeat(tracking.record_card_flip, 3),
        lambda u: tracking.record_card_flip(u, mastered_deck=True),
    ),
    "deck_collector": (repeat(tracking.record_deck_created, 4), tracking.record_deck_created),
    "mind_mapper": (repeat(tracking.record_mindmap_exported, 1), tracking.record_mindmap_created),
    "cartographer": (repeat(tracking.record_mindmap_created, 2), tracking.record_mindmap_exported),
    "concept_network": (
        repeat(tracking.record_mindmap_created, 4),
        tracking.record_mindmap_created,
    ),
}


def test_the_data_migration_loads_the_25_badges_of_the_spec():
    codes = list(BadgeDefinition.objects.values_list("code", flat=True))
    assert len(codes) == 25
    assert set(codes) == set(CASES) == {row[0] for row in DEFAULTS}
    categories = BadgeDefinition.objects.values_list("category", flat=True)
    assert sorted((c, list(categories).count(c)) for c in set(categories)) == [
        ("chat", 10),
        ("flashcards", 4),
        ("mindmap", 3),
        ("quiz", 4),
        ("workshop", 4),
    ]
    assert BadgeDefinition.objects.get(code="streak_3").next_level.code == "streak_7"


@pytest.mark.parametrize("code", list(CASES))
def test_each_badge_is_earned_by_its_event_and_not_before(alice, code):
    almost, earn = CASES[code]
    almost(alice)
    assert code not in earned_codes(alice)
    new = earn(alice)
    assert code in {badge.badge.code for badge in new}
    assert code in earned_codes(alice)


def test_a_badge_is_earned_only_once(alice):
    assert [b.badge.code for b in message(alice)] == ["first_question"]
    assert message(alice, T0 + MINUTE) == []
    assert EarnedBadge.objects.filter(user=alice, badge__code="first_question").count() == 1


def test_a_badge_is_dated_by_the_event_that_earned_it(alice):
    [earned] = message(alice, T0)
    assert earned.earned_at == T0


def test_a_teacher_adds_a_26th_badge_in_the_admin_and_it_is_awarded_without_code(
    tess_client, alice
):
    response = tess_client.post(
        "/admin/progress/badgedefinition/add/",
        {
            "code": "regular",
            "name": "Regular",
            "description": "Three separate study sessions.",
            "icon": "🪴",
            "category": "chat",
            "metric": "sessions",
            "target": "3",
            "next_level": "",
            "enabled": "on",
            "position": "300",
        },
    )
    assert response.status_code == 302, response.content
    message(alice, T0)
    message(alice, T0 + DAY)
    assert "regular" not in earned_codes(alice)
    assert "regular" in {b.badge.code for b in message(alice, T0 + 2 * DAY)}


def test_a_teacher_changes_a_target_in_the_admin(tess_client, alice):
    badge = BadgeDefinition.objects.get(code="card_reviewer")
    page = tess_client.get(f"/admin/progress/badgedefinition/{badge.pk}/change/")
    assert page.status_code == 200
    BadgeDefinition.objects.filter(pk=badge.pk).update(target=2)
    tracking.record_card_flip(alice)
    assert "card_reviewer" in {b.badge.code for b in tracking.record_card_flip(alice)}


def test_a_disabled_badge_is_neither_awarded_nor_shown(alice_client, alice):
    BadgeDefinition.objects.filter(code="first_question").update(enabled=False)
    assert message(alice) == []
    page = alice_client.get("/progress/")
    assert 'data-badge="first_question"' not in page.text
    assert 'data-badge="centurion"' in page.text


def test_an_earned_badge_stays_when_it_is_disabled_later(alice_client, alice):
    message(alice)
    BadgeDefinition.objects.filter(code="first_question").update(enabled=False)
    assert 'data-badge="first_question"' in alice_client.get("/progress/").text


def test_a_badge_row_with_an_unknown_metric_is_skipped_and_the_others_still_work(alice):
    BadgeDefinition.objects.create(
        code="broken",
        name="Broken",
        description="",
        icon="x",
        category="chat",
        metric="no_such_metric",
        target=1,
    )
    assert "first_question" in {b.badge.code for b in message(alice)}
    assert "broken" not in earned_codes(alice)


def test_students_cannot_edit_badges(alice_client):
    response = alice_client.get("/admin/progress/badgedefinition/")
    assert response.status_code == 302
    assert "/admin/login/" in response.url


def test_evaluate_without_kinds_checks_every_badge(alice):
    tracking.record_deck_created(alice)
    EarnedBadge.objects.all().delete()
    assert {b.badge.code for b in evaluate(alice)} == {"first_deck"}


def test_badge_pictures_are_drawn_not_emoji_that_need_an_emoji_font(alice_client, alice):
    message(alice)  # First Question: earned
    page = alice_client.get("/progress/").text
    badges = BadgeDefinition.objects.filter(enabled=True)
    assert page.count('class="badge-svg"') >= badges.count()
    for badge in badges:
        assert badge.icon not in page, badge.code
