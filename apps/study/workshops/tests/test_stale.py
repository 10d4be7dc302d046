"""A workshop whose lessons' source changed: the lesson page says so with the passage that
answers it now, and refreshing touches only those lessons, keeping what was completed."""

import pytest

from apps.study import stale
from apps.study.tests.helpers import CELL_NOTES
from apps.study.workshops import stale as workshops_stale
from apps.study.workshops.models import Workshop

pytestmark = pytest.mark.django_db

EDITED = CELL_NOTES.replace("Ribosomen bauen", "Ribosomen synthetisieren")


def lesson_url(workshop: Workshop, number: int) -> str:
    return f"/study/workshops/{workshop.pk}/lessons/{number}/"


def test_a_changed_lesson_shows_the_passage_that_answers_it_now(alice_client, notes):
    workshop = Workshop.objects.get(pk=notes.make(alice_client, "workshops", num_lessons=5))
    notes.edit("cells.md", EDITED)
    changed = workshops_stale.stale_lessons(workshop)
    kept = [lesson for lesson in workshop.lessons.all() if lesson not in changed]
    assert changed and kept

    page = alice_client.get(lesson_url(workshop, changed[0].number)).content.decode()
    assert 'class="stale-item"' in page and "Source changed" in page
    assert "The passage that answers it now (cells.md" in page
    assert "synthetisieren" in page  # only the new version says so
    assert page.count(">source changed</span>") == len(changed)  # marked in the lesson list
    assert "Refresh only th" in page
    assert f"for {len(changed)} lesson" in page
    assert f'action="/study/stale/workshop/{workshop.pk}/refresh/"' in page

    other = alice_client.get(lesson_url(workshop, kept[0].number)).content.decode()
    assert 'class="stale-item"' not in other  # this lesson's own sources did not change
    assert "Refresh only th" in other  # but the workshop's notice is there


def test_refreshing_a_workshop_changes_only_its_changed_lessons_and_keeps_completion(
    alice_client, notes
):
    workshop = Workshop.objects.get(pk=notes.make(alice_client, "workshops", num_lessons=5))
    for lesson in workshop.lessons.all():
        workshop.complete_lesson(lesson)
    notes.edit("cells.md", EDITED)
    changed = {lesson.pk for lesson in workshops_stale.stale_lessons(workshop)}
    before = {
        lesson.pk: (lesson.content, lesson.chunk_ids, lesson.completed_at)
        for lesson in workshop.lessons.all()
    }

    done = alice_client.post(f"/api/v1/study/workshops/{workshop.pk}/refresh").json()
    assert done == {"refreshed": len(changed), "stale": 0}
    for lesson in workshop.lessons.all():
        assert lesson.completed_at == before[lesson.pk][2]
        if lesson.pk not in changed:
            assert (lesson.content, lesson.chunk_ids) == before[lesson.pk][:2]
        else:
            assert stale.live(lesson.chunk_ids) == set(lesson.chunk_ids) and lesson.content
    workshop.refresh_from_db()
    assert workshop.completed_at is not None
    page = alice_client.get(lesson_url(workshop, 1)).content.decode()
    assert "Source changed" not in page and "source changed" not in page


def test_bob_can_neither_see_nor_refresh_alices_changed_lessons(alice_client, bob_client, notes):
    workshop = Workshop.objects.get(pk=notes.make(alice_client, "workshops", num_lessons=5))
    notes.edit("cells.md", EDITED)
    changed = len(workshops_stale.stale_lessons(workshop))
    assert bob_client.get(lesson_url(workshop, 1)).status_code == 404
    assert bob_client.get(f"/api/v1/study/workshops/{workshop.pk}").status_code == 404
    assert bob_client.post(f"/study/stale/workshop/{workshop.pk}/refresh/").status_code == 404
    assert bob_client.post(f"/api/v1/study/workshops/{workshop.pk}/refresh").status_code == 404
    assert bob_client.get("/api/v1/study/stale").json()["total"] == 0
    assert (
        len(workshops_stale.stale_lessons(workshop)) == changed
    )  # nothing of alice's was refreshed
    lessons = alice_client.get(f"/api/v1/study/workshops/{workshop.pk}").json()["lessons"]
    assert sum(lesson["source_changed"] for lesson in lessons) == changed
