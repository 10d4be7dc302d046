"""The dashboard in a real browser: the local time zone, the heatmap, one day's detail."""

import re

import pytest

from tests.helpers.browser import log_in, new_class
from tests.helpers.running_app import TEACHER

pytestmark = [pytest.mark.browser, pytest.mark.services]


def test_a_student_reads_their_dashboard_and_opens_a_day(browser, running_app):
    teacher = log_in(browser, running_app, *TEACHER, timezone_id="Europe/Berlin")
    class_page = new_class(teacher)
    teacher.get_by_label("Names").fill("Dana Weiss")
    teacher.get_by_role("button", name="Create accounts").click()
    card = teacher.locator("article.credential").first
    username, password = (
        card.locator(".username").inner_text(),
        card.locator(".password").inner_text(),
    )

    # The browser reports its zone on the first page; the seed then studies in that zone.
    student = log_in(browser, running_app, username, password, timezone_id="Asia/Tokyo")
    student.goto("/progress/")
    assert student.get_by_text("Times in Asia/Tokyo.").is_visible()
    assert student.locator('[data-stat="sessions"]').inner_text() == "0"
    running_app.manage("seed_progress", username, "--days", "30")

    student.reload()
    assert student.locator(".heatmap a.cell").count() == 90
    assert student.locator(".heatmap .cell.blank").count() == 1
    for level in range(5):
        assert student.locator(f".heatmap a.cell.level-{level}").count() > 0
    assert int(student.locator('[data-stat="sessions"]').inner_text()) >= 20
    earned = student.locator("#badge-grid li.badge.earned")
    for code in ("first_question", "mind_mapper", "perfect_score", "streak_3"):
        assert earned.and_(student.locator(f'[data-badge="{code}"]')).count() == 1
    assert student.locator('li.badge.locked[data-badge="streak_7"] progress').count() == 1

    # A 3-hour-plus day: clicking it swaps the day detail in place (htmx), no reload.
    marathon = student.locator(".heatmap a.cell.level-4").first
    day = marathon.get_attribute("data-day")
    label = marathon.get_attribute("aria-label")
    assert re.search(r": 3 h \d+ min, 1 session$", label)
    student.evaluate("window.notReloaded = true")
    marathon.click()
    detail = student.locator(f'#day-detail[data-day="{day}"]')
    detail.wait_for()
    assert re.match(r"3 h \d+ min", detail.locator('[data-figure="time"]').inner_text())
    assert detail.locator('[data-figure="sessions"]').inner_text() == "1"
    assert student.evaluate("window.notReloaded") is True
    assert student.url.endswith("/progress/")
    # ...and the heatmap marks that day, not the one the page opened on, as the one shown.
    selected = student.locator(".heatmap a.cell.selected")
    assert selected.count() == 1
    assert selected.get_attribute("data-day") == day
    assert selected.get_attribute("aria-current") == "date"

    # The student has no class overview; the teacher sees the student's figures there.
    assert student.goto("/progress/class/").status == 403
    class_id = re.search(r"/classes/(\d+)/", class_page)[1]
    teacher.goto(f"/progress/class/?class={class_id}")
    row = teacher.locator(f'tr[data-student="{username}"]')
    assert row.locator("td").nth(2).inner_text() != "0"
    student.context.close()
    teacher.context.close()
